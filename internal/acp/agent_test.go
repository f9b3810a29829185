package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// client is the SDK's client side in the test; the agent calls only the
// methods it overrides (the embedded interface is nil).
type client struct {
	sdk.Client
	mu      sync.Mutex
	updates []sdk.SessionUpdate
	// srv is the loopback model the agent's sessions use.
	srv *loopback.Server
	// ask answers approvals; nil refuses them with an error.
	ask func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
	// images is the agent's Config.Images.
	images bool
}

func (c *client) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	return nil
}

func (c *client) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	if c.ask == nil {
		return sdk.RequestPermissionResponse{}, errors.New("no approvals in this test")
	}
	return c.ask(ctx, r)
}

// text is the agent's message text the client received.
func (c *client) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, u := range c.updates {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// newSession opens a session in a new folder.
func newSession(t *testing.T, ctx context.Context, conn *sdk.ClientSideConnection) sdk.NewSessionResponse {
	t.Helper()
	s, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return s
}

// serve runs the agent in-process on pipes, each session a native run on
// the loopback model of scenario; it returns the client's connection. The
// test's end closes the pipes and waits for Serve.
func serve(t *testing.T, scenario string) (*sdk.ClientSideConnection, *client) {
	return serveClient(t, scenario, &client{})
}

// serveClient is serve with the client given.
func serveClient(t *testing.T, scenario string, c *client) (*sdk.ClientSideConnection, *client) {
	t.Helper()
	prov, srv := testkit.Model(t, scenario)
	c.srv = srv
	open := func(ctx context.Context, spec Spec) (*Run, error) {
		if spec.LoadID != "" {
			return nil, errors.New("unknown session " + spec.LoadID)
		}
		gate, err := permission.NewGate(permission.Options{Asker: spec.Asker, Root: spec.Cwd})
		if err != nil {
			return nil, err
		}
		rt := runtime.New(runtime.Config{Provider: prov, Gate: gate, Workspace: tools.Workspace{Root: spec.Cwd}})
		return &Run{ID: rt.SessionID(), Runtime: rt, Gate: gate, Close: rt.Close}, nil
	}
	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = Serve(context.Background(), Config{Open: open, Version: "test", Images: c.images}, toAgent, fromAgent)
		fromAgent.Close()
	}()
	conn := sdk.NewClientSideConnection(c, fromClient, toClient)
	t.Cleanup(func() {
		fromClient.Close()
		<-served
		<-conn.Done()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return conn, c
}

func TestBadRequestsGetAJSONRPCErrorNamingWhatIsWrong(t *testing.T) {
	conn, _ := serve(t, `rules: [{respond: {text: "hi", delay_ms: 300}}]`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	text := func(s string) []sdk.ContentBlock { return []sdk.ContentBlock{sdk.TextBlock(s)} }
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"a relative cwd", func() error {
			_, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "src", McpServers: []sdk.McpServer{}})
			return err
		}, `cwd: want an absolute directory, got "src"`},
		{"an unknown session", func() error {
			_, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: "nope", Prompt: text("hi")})
			return err
		}, `unknown session "nope"`},
		{"an image the agent does not take", func() error {
			_, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId,
				Prompt: []sdk.ContentBlock{sdk.ImageBlock("aGk=", "image/png")}})
			return err
		}, "prompt[0]: images are not supported"},
		{"a prompt without text", func() error {
			_, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: text("  ")})
			return err
		}, "prompt: no text"},
		{"an unknown mode", func() error {
			_, err := conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "yolo"})
			return err
		}, "modeId:"},
		{"an MCP server without a name", func() error {
			_, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(),
				McpServers: []sdk.McpServer{{Stdio: &sdk.McpServerStdio{Command: "x", Args: []string{}, Env: []sdk.EnvVariable{}}}}})
			return err
		}, "mcpServers[0]: name is empty"},
		{"a session that cannot be loaded", func() error {
			_, err := conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "atomic-gone", Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
			return err
		}, "session/load atomic-gone: unknown session atomic-gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var re *sdk.RequestError
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want a JSON-RPC error", err)
			}
			if data := fmt.Sprint(re.Data); !strings.Contains(data, tt.want) {
				t.Errorf("error data %q does not say %q", data, tt.want)
			}
		})
	}
}

func TestANewPromptCancelsTheRunningOneAndThenRuns(t *testing.T) {
	conn, c := serve(t, `
rules:
  - {name: second, match: {last_user_contains: two}, respond: {text: "second answer"}}
  - {name: first, respond: {text: "never seen", delay_ms: 5000}}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	first := make(chan sdk.PromptResponse, 1)
	go func() {
		r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("one")}})
		if err != nil {
			t.Errorf("first prompt: %v", err)
		}
		first <- r
	}()
	time.Sleep(200 * time.Millisecond)
	r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("two")}})
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("second prompt: %+v, %v", r, err)
	}
	if r := <-first; r.StopReason != sdk.StopReasonCancelled {
		t.Errorf("the superseded prompt answered %q, want cancelled", r.StopReason)
	}
	if got := c.text(); got != "second answer" {
		t.Errorf("message chunks %q, want the second answer only", got)
	}
}

func TestSetModeChangesThePermissionModeAndTellsTheClient(t *testing.T) {
	conn, c := serve(t, `rules: [{respond: {text: "hi"}}]`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	if s.Modes == nil || s.Modes.CurrentModeId != "default" || len(s.Modes.AvailableModes) != 4 {
		t.Fatalf("session/new modes %+v, want the four permission modes, default current", s.Modes)
	}
	if _, err := conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 5*time.Second, "current_mode_update", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, u := range c.updates {
			if u.CurrentModeUpdate != nil && u.CurrentModeUpdate.CurrentModeId == "plan" {
				return true
			}
		}
		return false
	})
}

func TestSubagentStatusesMapToToolCallStatuses(t *testing.T) {
	tests := []struct {
		in   lifecycle.Status
		want sdk.ToolCallStatus
	}{
		{lifecycle.Pending, sdk.ToolCallStatusPending},
		{lifecycle.Running, sdk.ToolCallStatusInProgress},
		{lifecycle.Background, sdk.ToolCallStatusInProgress},
		{lifecycle.Completed, sdk.ToolCallStatusCompleted},
		{lifecycle.Error, sdk.ToolCallStatusFailed},
		{lifecycle.Interrupted, sdk.ToolCallStatusFailed},
	}
	for _, tt := range tests {
		if got := agentStatus(tt.in); got != tt.want {
			t.Errorf("%s -> %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestAPromptSentWhileTheLeadIsWokenByBackgroundWorkAnswersAfterItsOwnTurn(t *testing.T) {
	conn, c := serve(t, `
rules:
  - {name: ping, match: {last_user_contains: PING}, respond: {text: "pong"}}
  - {name: woken, match: {last_user_contains: "background result 42"}, respond: {text: "woken answer", delay_ms: 1500}}
  - {name: ack, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "spawned"}}
  - {name: spawn, match: {system_contains: "You are Atomic"}, respond: {tool_calls: [{name: task, input: {description: "Slow analysis", prompt: "BG", mode: background}}]}}
  - {name: sub, match: {system_contains: "You are a sub-agent"}, respond: {text: "background result 42", delay_ms: 200}}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	prompt := func(text string) {
		t.Helper()
		r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		if err != nil || r.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %q: %+v, %v", text, r, err)
		}
	}
	prompt("start")
	testkit.WaitFor(t, 10*time.Second, "the background agent's completion", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, u := range c.updates {
			if u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == sdk.ToolCallStatusCompleted {
				return true
			}
		}
		return false
	})
	time.Sleep(300 * time.Millisecond) // the woken lead's turn is under way
	prompt("PING")
	if got := c.text(); !strings.HasSuffix(got, "pong") {
		t.Errorf("when PING's prompt answered the client had %q: the answer came before its turn ended", got)
	}
}

func TestAFailedTurnAnswersThePromptWithAnErrorNamingWhy(t *testing.T) {
	conn, _ := serve(t, `rules: [{respond: {error: {status: 400, type: invalid_request_error, message: "prompt is too long for this model"}}}]`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	_, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || !strings.Contains(fmt.Sprint(re.Data), "prompt is too long for this model") {
		t.Fatalf("prompt: %v, want a JSON-RPC error with the provider's reason", err)
	}
}

func TestDiskEditsDiffIsTheFileBeforeAndAfterTheEdit(t *testing.T) {
	dir := t.TempDir()
	existing, created := filepath.Join(dir, "a.txt"), filepath.Join(dir, "new.txt")
	if err := os.WriteFile(existing, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := newDiskEdits()
	d.started("c1", existing)
	d.started("c2", created)
	os.WriteFile(existing, []byte("after\n"), 0o644)
	os.WriteFile(created, []byte("fresh\n"), 0o644)
	if old, hadOld, now, ok := d.finished("c1", existing); !ok || !hadOld || old != "before\n" || now != "after\n" {
		t.Errorf("edit of an existing file: %q %v %q %v", old, hadOld, now, ok)
	}
	if _, hadOld, now, ok := d.finished("c2", created); !ok || hadOld || now != "fresh\n" {
		t.Errorf("a new file: hadOld %v, now %q, ok %v; want no old text", hadOld, now, ok)
	}
}

func TestCancellingThePromptWithdrawsTheApprovalTheClientIsShowing(t *testing.T) {
	asked := make(chan struct{})
	withdrawn := make(chan struct{})
	c := &client{ask: func(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		close(asked)
		<-ctx.Done() // the user never answers
		close(withdrawn)
		return sdk.RequestPermissionResponse{}, ctx.Err()
	}}
	conn, _ := serveClient(t, `
rules:
  - {name: after, match: {has_tool_results: true}, respond: {text: "after"}}
  - {name: run, respond: {tool_calls: [{name: bash, input: {command: "touch x", description: "make x"}}]}}
`, c)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	got := make(chan sdk.PromptResponse, 1)
	go func() {
		r, _ := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}})
		got <- r
	}()
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("no approval was asked")
	}
	if err := conn.Cancel(ctx, sdk.CancelNotification{SessionId: s.SessionId}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-withdrawn:
	case <-ctx.Done():
		t.Fatal("the approval was not withdrawn from the client")
	}
	if r := <-got; r.StopReason != sdk.StopReasonCancelled {
		t.Errorf("prompt answered %q, want cancelled", r.StopReason)
	}
}

func TestRejectAlwaysDeniesTheSameCommandLaterWithoutAskingAgain(t *testing.T) {
	var asked int
	var mu sync.Mutex
	c := &client{ask: func(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		mu.Lock()
		asked++
		mu.Unlock()
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
			Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: optRejectAlways, Outcome: "selected"}}}, nil
	}}
	conn, _ := serveClient(t, `
rules:
  - {name: final, match: {tool_result_contains: "not asked again"}, respond: {text: "gave up"}}
  - {name: again, match: {tool_result_contains: "declined"}, respond: {tool_calls: [{name: bash, input: {command: "touch x", description: "make x"}}]}}
  - {name: first, respond: {tool_calls: [{name: bash, input: {command: "touch x", description: "make x"}}]}}
`, c)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if asked != 1 {
		t.Errorf("asked %d times, want once: reject_always covers the same command later", asked)
	}
}

func TestSetModelSwitchesTheModelOfTheNextRequests(t *testing.T) {
	conn, c := serve(t, `rules: [{respond: {text: "hi"}}]`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := newSession(t, ctx, conn)
	if s.Models == nil || s.Models.CurrentModelId != "test-model" {
		t.Fatalf("session/new models %+v, want test-model current", s.Models)
	}
	if _, err := conn.UnstableSetSessionModel(ctx, sdk.UnstableSetSessionModelRequest{SessionId: s.SessionId, ModelId: "other-model"}); err != nil {
		t.Fatalf("session/set_model: %v", err)
	}
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}}); err != nil {
		t.Fatal(err)
	}
	log := c.srv.Log()
	if len(log) != 1 || log[0].Model != "other-model" {
		t.Errorf("requests %+v, want one for other-model", log)
	}
}
