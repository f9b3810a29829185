package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// acpFlow is what a client does in a test: open a session in Cwd, send
// Prompt, and then, as set, cancel once CancelAt tool calls are in
// progress, wait for WaitText in the agent's messages, load the session
// in a new `atomic acp`. FS, when set, is the editor's buffers (the client
// then offers fs/*). Approvals are allowed for the lead and rejected for
// sub-agents.
type acpFlow struct {
	Cwd string `json:"cwd"`
	// Before are prompts sent, and answered, before Prompt.
	Before   []string          `json:"before,omitempty"`
	Prompt   string            `json:"prompt"`
	CancelAt int               `json:"cancelAt,omitempty"`
	WaitText string            `json:"waitText,omitempty"`
	Load     bool              `json:"load,omitempty"`
	FS       map[string]string `json:"fs,omitempty"`
	// WaitCall: after the prompt, wait until a tool call whose title
	// holds it has ended; then After's prompts are sent, each answered.
	WaitCall string   `json:"waitCall,omitempty"`
	After    []string `json:"after,omitempty"`
	// LoadPrompt is sent once the session is loaded (Load).
	LoadPrompt string `json:"loadPrompt,omitempty"`
	// beforeCancel runs (Go client only) with the agent's pid before the
	// cancel is sent.
	beforeCancel func(pid int) `json:"-"`
}

// acpRun is what the client saw.
type acpRun struct {
	updates  []seenUpdate
	asked    []sdk.RequestPermissionRequest
	stop     sdk.StopReason
	err      string
	returned time.Time // when the prompt answered
	writes   map[string]string
	// replayed are the updates of the second agent's session/load (and
	// of its LoadPrompt).
	replayed []seenUpdate
	// sent is when the first of After's prompts was sent.
	sent time.Time
	// loadStop answers LoadPrompt.
	loadStop sdk.StopReason
}

// acpDriver runs a flow with one client library.
type acpDriver struct {
	name string
	run  func(t *testing.T, srv *loopback.Server, home string, f acpFlow, args ...string) acpRun
}

// acpDrivers are the ACP Go SDK's client and the official TypeScript
// library's (skipped without ATOMIC_TEST_ACP_SDK, failed under CI).
var acpDrivers = []acpDriver{{"go-sdk", runGoClient}, {"ts-sdk", runTSClient}}

// allowLead answers approvals: allowed for the lead, rejected for others.
func allowLead(r sdk.RequestPermissionRequest) string {
	if r.ToolCall.Meta["agent"] == "lead" {
		return "allow_once"
	}
	return "reject_once"
}

func runGoClient(t *testing.T, srv *loopback.Server, home string, f acpFlow, args ...string) acpRun {
	t.Helper()
	client := &acpClient{answer: allowLead, files: f.FS}
	a := startACP(t, srv, home, client, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	caps := sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: f.FS != nil, WriteTextFile: f.FS != nil}}
	init, s := a.session(t, ctx, f.Cwd, caps)
	if !init.AgentCapabilities.LoadSession {
		t.Errorf("initialize: %+v; want loadSession, as sessions are saved (atomic.db or not)", init.AgentCapabilities)
	}
	type answer struct {
		resp sdk.PromptResponse
		err  error
	}
	for _, p := range f.Before {
		if _, err := a.prompt(ctx, s.SessionId, p); err != nil {
			t.Fatalf("session/prompt %q: %v", p, err)
		}
	}
	if f.Prompt == "" { // created, never prompted
		if f.Load {
			return loadGoClient(t, ctx, srv, home, f, a, s.SessionId, args...)
		}
		return acpRun{}
	}
	got := make(chan answer, 1)
	go func() {
		r, err := a.prompt(ctx, s.SessionId, f.Prompt)
		got <- answer{r, err}
	}()
	if f.CancelAt > 0 {
		testkit.WaitFor(t, 20*time.Second, "tool calls in progress", func() bool {
			_, most := calls(client.seen())
			return most >= f.CancelAt
		})
		if f.beforeCancel != nil {
			f.beforeCancel(a.cmd.Process.Pid)
		}
		if err := a.conn.Cancel(ctx, sdk.CancelNotification{SessionId: s.SessionId}); err != nil {
			t.Fatalf("session/cancel: %v", err)
		}
	}
	var r answer
	select {
	case r = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("session/prompt did not answer within 30s")
	}
	run := acpRun{stop: r.resp.StopReason, returned: time.Now()}
	if r.err != nil {
		run.err = r.err.Error()
	}
	if f.WaitText != "" {
		testkit.WaitFor(t, 20*time.Second, f.WaitText, func() bool { return strings.Contains(agentText(client.seen()), f.WaitText) })
	}
	if f.WaitCall != "" {
		testkit.WaitFor(t, 20*time.Second, "tool call "+f.WaitCall+" ended", func() bool {
			byID, _ := calls(client.seen())
			for _, c := range byID {
				if strings.Contains(c.title, f.WaitCall) && (c.status() == sdk.ToolCallStatusCompleted || c.status() == sdk.ToolCallStatusFailed) {
					return true
				}
			}
			return false
		})
	}
	for i, p := range f.After {
		if i == 0 {
			run.sent = time.Now()
		}
		if _, err := a.prompt(ctx, s.SessionId, p); err != nil {
			t.Fatalf("session/prompt %q: %v", p, err)
		}
	}
	if f.Load {
		l := loadGoClient(t, ctx, srv, home, f, a, s.SessionId, args...)
		run.replayed, run.loadStop = l.replayed, l.loadStop
	}
	client.mu.Lock()
	run.asked, run.writes = client.asked, client.writes
	client.mu.Unlock()
	run.updates = client.seen()
	return run
}

// loadGoClient stops a, loads session id in a new agent on the same home,
// and sends f.LoadPrompt there.
func loadGoClient(t *testing.T, ctx context.Context, srv *loopback.Server, home string, f acpFlow, a *acpAgent, id sdk.SessionId, args ...string) acpRun {
	t.Helper()
	a.stop(t)
	again := &acpClient{answer: allowLead}
	b := startACP(t, srv, home, again, args...)
	init, err := b.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil || !init.AgentCapabilities.LoadSession {
		t.Fatalf("initialize: %+v, %v; want loadSession, as sessions are saved", init.AgentCapabilities, err)
	}
	if _, err := b.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: f.Cwd, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	var run acpRun
	if f.LoadPrompt != "" {
		r, err := b.prompt(ctx, id, f.LoadPrompt)
		if err != nil {
			t.Fatalf("session/prompt after load: %v", err)
		}
		run.loadStop = r.StopReason
	}
	run.replayed = again.seen()
	return run
}

// tsLine is one line the TypeScript client prints.
type tsLine struct {
	Update   *sdk.SessionNotification      `json:"update"`
	At       int64                         `json:"at"`
	Asked    *sdk.RequestPermissionRequest `json:"asked"`
	Response *sdk.PromptResponse           `json:"response"`
	Error    *string                       `json:"error"`
	Wrote    *sdk.WriteTextFileRequest     `json:"wrote"`
	Loading  bool                          `json:"loading"`
	Sent     *string                       `json:"sent"`
	Reinit   *sdk.InitializeResponse       `json:"reinitialized"`
	Init     *sdk.InitializeResponse       `json:"initialized"`
}

func runTSClient(t *testing.T, srv *loopback.Server, home string, f acpFlow, args ...string) acpRun {
	t.Helper()
	sdkDir := testkit.ACPSDK(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("ATOMIC_TEST_ACP_SDK is set but node is not on PATH: %v", err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "acpclient", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	flow, _ := json.Marshal(f)
	argv, env := acpCommand(srv, home, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script, sdkDir, string(flow), "--", binary}, argv...)...)
	cmd.Dir, cmd.Env = home, env
	var stderr lockedBuilder
	stderr.b = &strings.Builder{}
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	run := acpRun{}
	loading := false
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l tsLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("the TypeScript client printed %q: %v", sc.Text(), err)
		}
		switch {
		case l.Update != nil && loading:
			run.replayed = append(run.replayed, seenUpdate{at: time.UnixMilli(l.At), n: *l.Update})
		case l.Update != nil:
			run.updates = append(run.updates, seenUpdate{at: time.UnixMilli(l.At), n: *l.Update})
		case l.Asked != nil:
			run.asked = append(run.asked, *l.Asked)
		case l.Response != nil && loading:
			run.loadStop = l.Response.StopReason
		case l.Response != nil:
			run.stop, run.returned = l.Response.StopReason, time.UnixMilli(l.At)
		case l.Sent != nil && run.sent.IsZero():
			run.sent = time.UnixMilli(l.At)
		case l.Init != nil && !l.Init.AgentCapabilities.LoadSession:
			t.Errorf("initialize: %+v; want loadSession, as sessions are saved (atomic.db or not)", l.Init.AgentCapabilities)
		case l.Reinit != nil && !l.Reinit.AgentCapabilities.LoadSession:
			t.Errorf("initialize: %+v; want loadSession, as sessions are saved", l.Reinit.AgentCapabilities)
		case l.Error != nil:
			run.err, run.returned = *l.Error, time.UnixMilli(l.At)
		case l.Wrote != nil:
			if run.writes == nil {
				run.writes = map[string]string{}
			}
			run.writes[l.Wrote.Path] = l.Wrote.Content
		case l.Loading:
			loading = true
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the TypeScript client failed: %v\n%s", err, stderr.String())
	}
	return run
}

// noLeftover fails unless no process runs cmdline prefix (after a grace).
func noLeftover(t *testing.T, prefix string) {
	t.Helper()
	testkit.WaitFor(t, 10*time.Second, "no "+prefix+" process left", func() bool {
		return len(processes(t, 0, prefix)) == 0
	})
}

// processes lists the processes running cmdline prefix, under pid when
// pid is not 0 (by /proc).
func processes(t *testing.T, pid int, prefix string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	parent := map[int]int{}
	var match []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces; split after ')'.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) < 2 {
			continue
		}
		parent[p], _ = strconv.Atoi(f[1])
		cl, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.HasPrefix(strings.ReplaceAll(string(cl), "\x00", " "), prefix) {
			match = append(match, p)
		}
	}
	if pid == 0 {
		return match
	}
	var out []int
	for _, p := range match {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
