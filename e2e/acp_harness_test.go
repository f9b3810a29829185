package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/loopback"
)

// acpClient is an editor as the ACP SDK's client side sees it: it keeps
// every session update with the time it came, answers approvals with
// answer, and serves fs/* from files when offered.
type acpClient struct {
	mu      sync.Mutex
	updates []seenUpdate
	asked   []sdk.RequestPermissionRequest
	// answer picks the option for an approval ("" : cancelled).
	answer func(sdk.RequestPermissionRequest) string
	// files are the editor's buffers, by absolute path (fs/* clients).
	files  map[string]string
	writes map[string]string
	// onUpdate, when set, is called with each update (outside the lock).
	onUpdate func(sdk.SessionNotification)
}

type seenUpdate struct {
	at time.Time
	n  sdk.SessionNotification
}

func (c *acpClient) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, seenUpdate{at: time.Now(), n: n})
	f := c.onUpdate
	c.mu.Unlock()
	if f != nil {
		f(n)
	}
	return nil
}

func (c *acpClient) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, r)
	answer := c.answer
	c.mu.Unlock()
	id := ""
	if answer != nil {
		id = answer(r)
	}
	if id == "" {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
		Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id), Outcome: "selected"}}}, nil
}

func (c *acpClient) ReadTextFile(ctx context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	text, ok := c.files[r.Path]
	if !ok {
		return sdk.ReadTextFileResponse{}, sdk.NewInvalidParams(map[string]any{"error": "no such buffer: " + r.Path})
	}
	return sdk.ReadTextFileResponse{Content: text}, nil
}

func (c *acpClient) WriteTextFile(ctx context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writes == nil {
		c.writes = map[string]string{}
	}
	c.writes[r.Path] = r.Content
	if c.files != nil {
		c.files[r.Path] = r.Content
	}
	return sdk.WriteTextFileResponse{}, nil
}

func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalCreate)
}

func (c *acpClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalKill)
}

func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalOutput)
}

func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalRelease)
}

func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalWaitForExit)
}

// seen returns the updates so far.
func (c *acpClient) seen() []seenUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]seenUpdate(nil), c.updates...)
}

// call is one tool call as the client has assembled it from its updates.
type call struct {
	title    string
	kind     sdk.ToolKind
	statuses []sdk.ToolCallStatus
	content  []string // every text shown, in order
	doneAt   time.Time
	diffs    []sdk.ToolCallContentDiff
	locs     []string
}

func (c call) status() sdk.ToolCallStatus {
	if len(c.statuses) == 0 {
		return ""
	}
	return c.statuses[len(c.statuses)-1]
}

// calls folds the tool call updates, by id, and reports the most calls in
// progress at one time.
func calls(ups []seenUpdate) (map[sdk.ToolCallId]*call, int) {
	out := map[sdk.ToolCallId]*call{}
	status := map[sdk.ToolCallId]sdk.ToolCallStatus{}
	most := 0
	texts := func(cs []sdk.ToolCallContent, c *call) {
		for _, x := range cs {
			if x.Content != nil && x.Content.Content.Text != nil {
				c.content = append(c.content, x.Content.Content.Text.Text)
			}
			if x.Diff != nil {
				c.diffs = append(c.diffs, *x.Diff)
			}
		}
	}
	for _, u := range ups {
		var id sdk.ToolCallId
		var st *sdk.ToolCallStatus
		switch {
		case u.n.Update.ToolCall != nil:
			tc := u.n.Update.ToolCall
			id = tc.ToolCallId
			c := &call{title: tc.Title, kind: tc.Kind}
			for _, l := range tc.Locations {
				c.locs = append(c.locs, l.Path)
			}
			texts(tc.Content, c)
			out[id] = c
			s := tc.Status
			st = &s
		case u.n.Update.ToolCallUpdate != nil:
			tu := u.n.Update.ToolCallUpdate
			id = tu.ToolCallId
			c, ok := out[id]
			if !ok {
				c = &call{}
				out[id] = c
			}
			if tu.Title != nil {
				c.title = *tu.Title
			}
			texts(tu.Content, c)
			st = tu.Status
		default:
			continue
		}
		c := out[id]
		if st != nil && *st != "" {
			if c.status() != *st {
				c.statuses = append(c.statuses, *st)
			}
			status[id] = *st
			if *st == sdk.ToolCallStatusCompleted || *st == sdk.ToolCallStatusFailed {
				c.doneAt = u.at
			}
		}
		n := 0
		for _, s := range status {
			if s == sdk.ToolCallStatusInProgress {
				n++
			}
		}
		most = max(most, n)
	}
	return out, most
}

// agentText is the lead's message text the client received.
func agentText(ups []seenUpdate) string {
	var b strings.Builder
	for _, u := range ups {
		if m := u.n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
			b.WriteString(m.Content.Text.Text)
		}
	}
	return b.String()
}

// acpAgent is a running `atomic acp` with the SDK's client side on its
// stdio.
type acpAgent struct {
	cmd    *exec.Cmd
	conn   *sdk.ClientSideConnection
	client *acpClient
	home   string
	stdin  interface{ Close() error }
	done   chan struct{}
}

// acpCommand is the argv (after the binary) and environment of an
// `atomic acp` against srv with home as its HOME and state, so a later
// agent on the same home can load its sessions.
func acpCommand(srv *loopback.Server, home string, args ...string) (argv, env []string) {
	cfgDir := filepath.Join(home, "atomic")
	os.MkdirAll(cfgDir, 0o755)
	os.WriteFile(filepath.Join(cfgDir, "config.json"), []byte(`{"retry":{"max_attempts":3,"base_delay_ms":20,"max_delay_ms":200}}`), 0o644)
	argv = append([]string{"acp", "--provider", "anthropic", "--model", "test-model", "--base-url", srv.URL()}, args...)
	env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"ANTHROPIC_API_KEY=test-key",
	}
	return argv, env
}

// startACP starts `atomic acp` (see acpCommand) with the SDK's client
// side on its stdio.
func startACP(t *testing.T, srv *loopback.Server, home string, client *acpClient, args ...string) *acpAgent {
	t.Helper()
	argv, env := acpCommand(srv, home, args...)
	cmd := exec.Command(binary, argv...)
	cmd.Dir = home
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &lockedBuilder{b: &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &acpAgent{cmd: cmd, client: client, home: home, stdin: stdin, done: make(chan struct{})}
	a.conn = sdk.NewClientSideConnection(client, stdin, stdout)
	go func() {
		_ = cmd.Wait()
		close(a.done)
	}()
	t.Cleanup(func() {
		a.stop(t)
		if t.Failed() {
			t.Logf("atomic acp stderr:\n%s", cmd.Stderr.(*lockedBuilder).String())
		}
	})
	return a
}

// stop closes the agent's stdin (the client went away) and waits for it
// to exit.
func (a *acpAgent) stop(t *testing.T) {
	t.Helper()
	a.stdin.Close()
	select {
	case <-a.done:
	case <-time.After(20 * time.Second):
		a.cmd.Process.Kill()
		<-a.done
		t.Errorf("atomic acp did not exit within 20s of its stdin closing")
	}
}

// session initialises the connection and opens a new session in dir.
func (a *acpAgent) session(t *testing.T, ctx context.Context, dir string, caps sdk.ClientCapabilities) (sdk.InitializeResponse, sdk.NewSessionResponse) {
	t.Helper()
	init, err := a.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	s, err := a.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return init, s
}

func (a *acpAgent) prompt(ctx context.Context, id sdk.SessionId, text string) (sdk.PromptResponse, error) {
	return a.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

type lockedBuilder struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
