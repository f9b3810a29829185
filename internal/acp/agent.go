// Package acp makes Atomic an Agent Client Protocol agent (editors such as
// Zed drive it over stdio): each ACP session is one run of Atomic, its
// events sent as session updates, every sub-agent a tool call whose status
// is the lifecycle reducer's, and approvals asked of the client.
package acp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/runtime"
)

// Spec is what one session is opened with.
type Spec struct {
	// LoadID is the stored session to continue (session/load); "" opens
	// a new one.
	LoadID string
	// Cwd is the session's working directory (absolute).
	Cwd string
	// MCPServers are the client's MCP servers for this session.
	MCPServers []mcp.Server
	// Asker puts approvals to the client.
	Asker permission.Asker
	// Files reads and writes through the client (its unsaved buffers
	// included); nil when the client offers neither.
	Files Files
	// Warn shows a warning to the client (as the agent's message, see
	// notices): an MCP server that failed, a problem in the settings.
	Warn func(string)
}

// Prompt is a user prompt of a stored session, with its images when the
// lead's history still has them (see RestoreImages).
type Prompt struct {
	Text   string
	Time   time.Time
	Images []provider.Image
}

// Run is an opened run of Atomic for one session.
type Run struct {
	// ID is the run's session id, which the client then uses.
	ID      string
	Runtime *runtime.Runtime
	// Gate decides the run's tool calls; session/set_mode changes its mode.
	Gate *permission.Gate
	// Past and Prompts are a loaded session's stored events and prompts,
	// replayed to the client.
	Past    []event.Event
	Prompts []Prompt
	// Close ends the run (after the session has stopped it).
	Close func()
	// Commands are the custom slash commands offered to the client;
	// Expand turns a prompt "/name args" into the prompt the lead gets
	// (ok false: not one of them; err: it could not, e.g. a !`command`
	// refused) and, if not nil, what to do as its turn starts (a skill's
	// grant). Nil Expand: none.
	Commands []Command
	Expand   func(ctx context.Context, text string) (prompt string, start func(), ok bool, err error)
}

// Config configures the agent.
type Config struct {
	// Open builds the run of one session.
	Open func(ctx context.Context, spec Spec) (*Run, error)
	// CanLoad reports whether stored sessions exist to load.
	CanLoad func() bool
	// Version is Atomic's version, sent in initialize.
	Version string
	// Images says the lead takes images in prompts (the native backend
	// over a provider that sends them): promptCapabilities.image, and
	// image blocks are accepted.
	Images bool
	// MaxMessage is the longest message taken from the client, in bytes
	// (0: DefaultMaxMessage); a longer one is answered with an error.
	MaxMessage int
}

// Serve speaks ACP on in and out until the client closes in or ctx ends;
// every session's run is ended before it returns.
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	limit := cfg.MaxMessage
	if limit <= 0 {
		limit = DefaultMaxMessage
	}
	a := &agent{cfg: cfg, sessions: map[sdk.SessionId]*session{}, large: newLargeStrings(2 * limit), connSet: make(chan struct{})}
	w := &lockedWriter{w: out}
	conn := sdk.NewAgentSideConnection(a, w, newLineReader(in, w, limit, a.large))
	a.mu.Lock()
	a.conn = conn
	a.mu.Unlock()
	close(a.connSet)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	a.closeAll()
	return nil
}

// agent implements the ACP agent side.
type agent struct {
	cfg Config

	// connSet is closed once conn is set: the SDK reads requests from
	// the moment the connection is made, before Serve has stored it.
	connSet chan struct{}

	mu       sync.Mutex
	conn     *sdk.AgentSideConnection
	client   sdk.ClientCapabilities
	sessions map[sdk.SessionId]*session
	closing  bool
	// large holds the long strings of messages too long for the SDK.
	large *largeStrings
}

var (
	_ sdk.Agent       = (*agent)(nil)
	_ sdk.AgentLoader = (*agent)(nil)
)

func (a *agent) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.client = p.ClientCapabilities
	a.mu.Unlock()
	version := a.cfg.Version
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "atomic", Title: ptr("Atomic"), Version: version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        a.cfg.CanLoad != nil && a.cfg.CanLoad(),
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true, Image: a.cfg.Images},
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
		},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

func (a *agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil // no method is offered: keys come from flags and the environment
}

func (a *agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	s, err := a.open(ctx, "", p.Cwd, p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	return sdk.NewSessionResponse{SessionId: s.id, Modes: modes(s.run.Gate), Models: models(s.run.Runtime)}, nil
}

func (a *agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if p.SessionId == "" {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "sessionId: give the id of a saved session"})
	}
	a.mu.Lock()
	_, open := a.sessions[p.SessionId]
	a.mu.Unlock()
	if open {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %s is already open", p.SessionId)})
	}
	s, err := a.open(ctx, string(p.SessionId), p.Cwd, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	s.flush(ctx) // the history reaches the client before the response
	return sdk.LoadSessionResponse{Modes: modes(s.run.Gate), Models: models(s.run.Runtime)}, nil
}

// open opens a session's run (a new one, or stored session loadID).
func (a *agent) open(ctx context.Context, loadID, cwd string, servers []sdk.McpServer) (*session, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd: want an absolute directory, got %q", cwd)})
	}
	mcps, err := mcpServers(servers)
	if err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	<-a.connSet
	a.mu.Lock()
	conn, caps, closing := a.conn, a.client, a.closing
	a.mu.Unlock()
	if closing {
		return nil, sdk.NewInternalError(map[string]any{"error": "the agent is shutting down"})
	}
	ask, notes := &asker{conn: conn}, &notices{}
	spec := Spec{LoadID: loadID, Cwd: filepath.Clean(cwd), MCPServers: mcps, Asker: ask, Warn: notes.warn}
	if caps.Fs.ReadTextFile || caps.Fs.WriteTextFile {
		spec.Files = newClientFiles(conn, a.large, caps.Fs.ReadTextFile, caps.Fs.WriteTextFile)
	}
	run, err := a.cfg.Open(ctx, spec)
	if err != nil {
		if loadID != "" {
			return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session/load %s: %v", loadID, err)})
		}
		return nil, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	var ed edits = newDiskEdits()
	if f, ok := spec.Files.(*clientFiles); ok {
		f.session, ed = sdk.SessionId(run.ID), f
	}
	s := start(sdk.SessionId(run.ID), conn, run, spec.Cwd, ed, ask)
	s.push(commandsUpdate(run.Commands))
	notes.attach(s)
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	return s, nil
}

func (a *agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if !ok {
		known := make([]string, 0, len(a.sessions))
		for k := range a.sessions {
			known = append(known, string(k))
		}
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %q (open: %s)", id, orNone(known))})
	}
	return s, nil
}

func (a *agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	if err := expand(a.large, &p); err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text, images, err := promptContent(p.Prompt, a.cfg.Images)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	var stop sdk.StopReason
	if instr, ok := compactArgs(text); ok {
		stop, err = s.compact(ctx, instr)
	} else if stop, ok, err = s.command(ctx, text, images); !ok {
		stop, err = s.prompt(ctx, text, images, nil)
	}
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return sdk.PromptResponse{StopReason: stop}, nil
}

func (a *agent) Cancel(ctx context.Context, p sdk.CancelNotification) error {
	s, err := a.session(p.SessionId)
	if err != nil {
		return err
	}
	s.cancel()
	return nil
}

func (a *agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	mode, err := permission.ParseMode(string(p.ModeId))
	if err != nil {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("modeId: %v", err)})
	}
	s.run.Gate.SetMode(mode)
	s.push(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: p.ModeId, SessionUpdate: "current_mode_update"}})
	return sdk.SetSessionModeResponse{}, nil
}

// UnstableSetSessionModel switches the lead's model (session/set_model);
// like /model it ends the session's running sub-agents first.
func (a *agent) UnstableSetSessionModel(ctx context.Context, p sdk.UnstableSetSessionModelRequest) (sdk.UnstableSetSessionModelResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	if strings.TrimSpace(string(p.ModelId)) == "" {
		return sdk.UnstableSetSessionModelResponse{}, sdk.NewInvalidParams(map[string]any{"error": "modelId is empty"})
	}
	if s.run.Runtime.Busy() {
		return sdk.UnstableSetSessionModelResponse{}, sdk.NewInvalidParams(map[string]any{"error": "cannot switch models during a prompt: cancel it first"})
	}
	s.run.Runtime.SwitchModel(string(p.ModelId))
	return sdk.UnstableSetSessionModelResponse{}, nil
}

func (a *agent) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionClose)
}

func (a *agent) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

func (a *agent) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

func (a *agent) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// closeAll ends every session's run.
func (a *agent) closeAll() {
	a.mu.Lock()
	a.closing = true
	ss := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		ss = append(ss, s)
	}
	a.sessions = map[sdk.SessionId]*session{}
	a.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(s.close)
	}
	wg.Wait()
}

// promptContent joins the prompt's text and embedded text resources and,
// when images are taken, decodes its image blocks; other blocks (audio,
// binary resources, images when not taken) are refused by name, since the
// capabilities sent in initialize do not offer them.
func promptContent(blocks []sdk.ContentBlock, takeImages bool) (string, []provider.Image, error) {
	var (
		parts  []string
		images []provider.Image
	)
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			parts = append(parts, fmt.Sprintf("[%s](%s)", b.ResourceLink.Name, b.ResourceLink.Uri))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, fmt.Sprintf("<context uri=%q>\n%s\n</context>", r.Uri, r.Text))
		case b.Image != nil && takeImages:
			img, err := promptImage(b.Image)
			if err != nil {
				return "", nil, fmt.Errorf("prompt[%d]: %w", i, err)
			}
			images = append(images, img)
		case b.Image != nil:
			return "", nil, fmt.Errorf("prompt[%d]: images are not supported (promptCapabilities.image is false: the lead is not the native backend over a provider that takes images)", i)
		case b.Audio != nil:
			return "", nil, fmt.Errorf("prompt[%d]: audio is not supported (promptCapabilities.audio is false)", i)
		default:
			return "", nil, fmt.Errorf("prompt[%d]: a binary resource is not supported: embed text", i)
		}
	}
	text := strings.TrimSpace(strings.Join(parts, "\n"))
	if text == "" && len(images) == 0 {
		return "", nil, fmt.Errorf("prompt: no text: give at least one text block")
	}
	return text, images, nil
}

// promptImage decodes an image block: base64 data of a type the
// providers' APIs take.
func promptImage(b *sdk.ContentBlockImage) (provider.Image, error) {
	switch b.MimeType {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
	default:
		return provider.Image{}, fmt.Errorf("image mimeType %q is not supported (use image/png, image/jpeg, image/gif or image/webp)", b.MimeType)
	}
	if b.Data == "" {
		return provider.Image{}, errors.New("image has no data: give the picture as base64 data (a uri alone is not fetched)")
	}
	data, err := base64.StdEncoding.DecodeString(b.Data)
	if err != nil {
		return provider.Image{}, fmt.Errorf("image data is not valid base64: %w", err)
	}
	return provider.Image{MediaType: b.MimeType, Data: data}, nil
}

// mcpServers converts the client's MCP servers to Atomic's.
func mcpServers(in []sdk.McpServer) ([]mcp.Server, error) {
	out := make([]mcp.Server, 0, len(in))
	for i, m := range in {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, mcp.Server{Name: m.Stdio.Name, Type: mcp.Stdio, Command: m.Stdio.Command, Args: m.Stdio.Args,
				Env: env, Source: "the ACP client"})
		case m.Http != nil:
			out = append(out, mcp.Server{Name: m.Http.Name, Type: mcp.HTTP, URL: m.Http.Url, Headers: headers(m.Http.Headers),
				Source: "the ACP client"})
		case m.Sse != nil:
			out = append(out, mcp.Server{Name: m.Sse.Name, Type: mcp.SSE, URL: m.Sse.Url, Headers: headers(m.Sse.Headers),
				Source: "the ACP client"})
		default:
			return nil, fmt.Errorf("mcpServers[%d]: unsupported transport (stdio, http and sse are)", i)
		}
		if out[len(out)-1].Name == "" {
			return nil, fmt.Errorf("mcpServers[%d]: name is empty", i)
		}
	}
	return out, nil
}

func headers(hs []sdk.HttpHeader) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}

// modes are Atomic's permission modes, offered as session modes.
func modes(g *permission.Gate) *sdk.SessionModeState {
	all := []struct {
		mode permission.Mode
		name string
		desc string
	}{
		{permission.Default, "Default", "Ask before edits and commands"},
		{permission.AcceptEdits, "Accept edits", "Edits allowed; ask before commands"},
		{permission.Plan, "Plan", "Read-only: edits and commands denied"},
		{permission.BypassPermissions, "Bypass permissions", "Everything allowed (deny rules still apply)"},
	}
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(g.Mode())}
	for _, m := range all {
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m.mode), Name: m.name, Description: ptr(m.desc)})
	}
	return st
}

// models offers the lead's model; any other name the provider knows can
// be set with session/set_model.
func models(rt *runtime.Runtime) *sdk.SessionModelState {
	m := sdk.ModelId(rt.Model())
	if m == "" {
		return nil
	}
	return &sdk.SessionModelState{CurrentModelId: m, AvailableModels: []sdk.ModelInfo{{ModelId: m, Name: string(m)}}}
}

func orNone(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}

func ptr[T any](v T) *T { return &v }
