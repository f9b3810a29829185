//go:build unix

package codex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
)

// recorder is a sink that applies every event to a lifecycle.State.
type recorder struct {
	mu     sync.Mutex
	state  lifecycle.State
	events []event.Event
	on     func(event.Event)
}

func (r *recorder) Emit(e event.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.state.Apply(e)
	on := r.on
	r.mu.Unlock()
	if on != nil {
		on(e)
	}
}

func (r *recorder) record(id string) lifecycle.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, _ := r.state.Get(id)
	return rec
}

func (r *recorder) settled() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state.Settled()
}

// startFake starts a Session on the fake app-server replaying script.
func startFake(t *testing.T, script string, gate *permission.Gate, rec *recorder, cfg backend.Config) *Session {
	t.Helper()
	abs := script
	if !filepath.IsAbs(script) {
		var err error
		if abs, err = filepath.Abs(filepath.Join("testdata", script)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(fakeScript, abs)
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg.SessionID, cfg.AgentID, cfg.Workspace, cfg.Bin, cfg.Gate, cfg.Sink = "s1", "lead", t.TempDir(), bin, gate, rec
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(rest, "Z") // dead, waiting for a reaper
}

func TestSessionRunsFanOutInterruptAndSubagentApprovalOverStdio(t *testing.T) {
	rec := &recorder{}
	s := startFake(t, "codex-subagents-appserver.txt", allowAll(t), rec, backend.Config{})
	pid := s.cmd.Process.Pid
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	res, err := s.Run(ctx, "CAP-FG3: start three independent sub-agents in parallel, then summarise their answers.")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Summary: ALPHA, BETA and GAMMA are all done. (FG done)" || res.StopReason != "end_turn" || res.Usage.OutputTokens == 0 {
		t.Fatalf("fan-out turn = %+v", res)
	}
	for _, id := range []string{"general-purpose-1", "general-purpose-2", "general-purpose-3"} {
		if r := rec.record(id); r.Status != lifecycle.Completed || !r.Background {
			t.Errorf("%s: %s (background %v), want a completed background agent", id, r.Status, r.Background)
		}
	}

	// Interrupt: cancelling Run's context while the lead waits on its slow
	// sub-agent sends turn/interrupt (the fake goes on only when it has).
	s.Reset()
	ictx, icancel := context.WithCancel(ctx)
	defer icancel()
	rec.mu.Lock()
	rec.on = func(e event.Event) {
		if e.Type == event.ToolStart && e.AgentID == "lead" && e.ToolCallID == "call_10_0" {
			icancel()
		}
	}
	rec.mu.Unlock()
	if _, err := s.Run(ictx, "CAP-INT: start one slow sub-agent and wait for it."); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Run error = %v, want context.Canceled", err)
	}
	if r := rec.record("general-purpose-4"); r.Status != lifecycle.Interrupted || r.Session != lifecycle.SessionClosed {
		t.Fatalf("slow agent after interrupt: %s, session %s", r.Status, r.Session)
	}

	// Approval: the child's command is put to the gate and accepted (the
	// fake fails unless the reply is {"decision":"accept"} for id 0).
	s.Reset()
	res, err = s.Run(ctx, "CAP-PERM: start a sub-agent that writes a file.")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "The sub-agent wrote the file. (PERM done)" {
		t.Fatalf("perm turn text %q", res.Text)
	}
	if r := rec.record("general-purpose-5"); r.Status != lifecycle.Completed || r.Result != "done PERM" {
		t.Fatalf("perm agent: %s %q", r.Status, r.Result)
	}
	if !rec.settled() {
		t.Fatal("not settled after every agent ended")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !gone(pid) {
		t.Fatalf("app-server %d still alive after Close", pid)
	}
	if s.Pending() {
		t.Fatal("closed session pending")
	}
}

func TestCloseKillsAnAppServerIgnoringEOFAndSIGTERMWithItsDescendants(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv(fakeHang, "1")
	t.Setenv(fakePIDFile, pidFile)
	rec := &recorder{}
	s := startFake(t, "codex-subagents-appserver.txt", allowAll(t), rec, backend.Config{})
	pid := s.cmd.Process.Pid
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(string(b))
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*closeGrace+time.Second {
		t.Fatalf("Close took %v", d)
	}
	deadline := time.Now().Add(2 * time.Second)
	for !(gone(pid) && gone(child)) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !gone(pid) || !gone(child) {
		t.Fatalf("alive after Close: server %v, its sleep %v", !gone(pid), !gone(child))
	}
}

func TestRunOnAServerThatNeverAnswersTurnStartReturnsWithTheContext(t *testing.T) {
	t.Setenv(fakeHang, "1")
	t.Setenv(fakePIDFile, filepath.Join(t.TempDir(), "pid"))
	rec := &recorder{}
	s := startFake(t, "codex-subagents-appserver.txt", allowAll(t), rec, backend.Config{})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	// The hung fake never answers turn/start: Run gives up with ctx.
	if _, err := s.Run(ctx, "CAP-FG3"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run error = %v, want the context's deadline", err)
	}
}

func TestNewWithBaseURLGivesTheCLIAThrowawayCodexHomeWithAResponsesProvider(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "dump")
	t.Setenv(fakeDump, dump)
	rec := &recorder{}
	s := startFake(t, "codex-subagents-appserver-v2.txt", nil, rec,
		backend.Config{BaseURL: "http://127.0.0.1:9/v1", APIKey: "sk-test", Model: "gpt-5"})
	home := s.home
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	want := keyEnv + "=sk-test\n" + `model_provider = "atomic"
model = "gpt-5"

[model_providers.atomic]
name = "atomic"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
env_key = "ATOMIC_CODEX_API_KEY"

[tools.update_plan]
enabled = true
`
	if string(b) != want {
		t.Fatalf("the CLI saw:\n%s\nwant:\n%s", b, want)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("CODEX_HOME %s left behind (%v)", home, err)
	}
}

func TestNewWithoutTheCLINamesTheNpmPackage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := New(backend.Config{Workspace: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "npm install -g @openai/codex") {
		t.Fatalf("error = %v, want one naming the npm package", err)
	}
}

func TestTomlStringEscapesQuotesBackslashesAndControls(t *testing.T) {
	if got := tomlString("a\"b\\c\nd"); got != `"a\"b\\c\u000Ad"` {
		t.Fatalf("tomlString = %s", got)
	}
}

// script writes a fake app-server script made of lines of a capture (1-
// based, inclusive ranges) and extra lines.
func script(t *testing.T, capture string, ranges [][2]int, extra ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", capture))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	var out strings.Builder
	for _, r := range ranges {
		for _, l := range lines[r[0]-1 : r[1]] {
			out.WriteString(l)
		}
	}
	for _, l := range extra {
		out.WriteString(l + "\n")
	}
	path := filepath.Join(t.TempDir(), "script.txt")
	if err := os.WriteFile(path, []byte(out.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestInterruptTheCLINeverConfirmsStillEndsTheSubagentsInterrupted(t *testing.T) {
	// Thread B of the v1 capture up to the interrupt's {} answer, without
	// the interrupted turn/completed that followed.
	path := script(t, "codex-subagents-appserver.txt", [][2]int{{1, 3}, {100, 133}})
	rec := &recorder{}
	s := startFake(t, path, allowAll(t), rec, backend.Config{})
	defer s.Close()
	s.interruptWait = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec.mu.Lock()
	rec.on = func(e event.Event) {
		if e.Type == event.ToolStart && e.ToolCallID == "call_10_0" {
			cancel()
		}
	}
	rec.mu.Unlock()
	if _, err := s.Run(ctx, "CAP-INT"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	if r := rec.record("general-purpose-1"); r.Status != lifecycle.Interrupted || r.Session != lifecycle.SessionClosed {
		t.Fatalf("slow agent: %s, session %s; want interrupted and closed", r.Status, r.Session)
	}
	if !rec.settled() {
		t.Fatal("not settled after the interrupt")
	}
}

func TestATurnTheLeadBeginsByItselfIsPendingAndRunWithoutPromptCarriesIt(t *testing.T) {
	const lead = "01a20450-48ed-71b1-b39d-a2566b942d8d"
	path := script(t, "codex-subagents-appserver-v2.txt", [][2]int{{1, 91}},
		`<< {"method":"turn/started","params":{"threadId":"`+lead+`","turn":{"id":"auto-1","items":[],"status":"inProgress","error":null}}}`,
		`<< {"method":"item/completed","params":{"threadId":"`+lead+`","turnId":"auto-1","item":{"type":"agentMessage","id":"msg_auto","text":"A late answer."}}}`,
		`<< {"method":"turn/completed","params":{"threadId":"`+lead+`","turn":{"id":"auto-1","items":[],"status":"completed","error":null}}}`)
	rec := &recorder{}
	s := startFake(t, path, allowAll(t), rec, backend.Config{})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.Run(ctx, "CAP-FG3: start three independent sub-agents in parallel, then summarise their answers.")
	if err != nil || res.Text != "Summary: ALPHA, BETA and GAMMA are all done. (FG done)" {
		t.Fatalf("first turn = %+v, %v", res, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !s.Pending() {
		if time.Now().After(deadline) {
			t.Fatal("the CLI's own turn never made the session pending")
		}
		time.Sleep(5 * time.Millisecond)
	}
	res, err = s.Run(ctx, "")
	if err != nil || res.Text != "A late answer." {
		t.Fatalf("Run(\"\") = %+v, %v; want the CLI's own turn", res, err)
	}
	if s.Pending() {
		t.Fatal("still pending after the CLI's turn was carried")
	}
	if res, err := s.Run(ctx, ""); err != nil || res.Text != "" {
		t.Fatalf("Run(\"\") with nothing to do = %+v, %v", res, err)
	}
}

func TestCancelAgentInterruptsTheSubagentsOwnTurnOverStdio(t *testing.T) {
	rec := &recorder{}
	var s *Session
	var once sync.Once
	cancelled := make(chan error, 1)
	rec.on = func(e event.Event) {
		// The lead's first usage comes after the slow agent's turn began;
		// the fake goes on only once turn/interrupt names that turn.
		if e.Type == event.UsageUpdate && e.AgentID == "lead" {
			once.Do(func() { go func() { cancelled <- s.CancelAgent("general-purpose-1") }() })
		}
	}
	s = startFake(t, "codex-cancel-agent-appserver.txt", allowAll(t), rec, backend.Config{})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.Run(ctx, "CAP-CANCEL: start two sub-agents, then wait for the fast one.")
	if err != nil {
		t.Fatal(err)
	}
	if err := <-cancelled; err != nil {
		t.Fatalf("CancelAgent: %v", err)
	}
	if res.Text != "FAST is done." || res.StopReason != "end_turn" {
		t.Fatalf("lead turn = %+v, want it to go on to its own end", res)
	}
	if r := rec.record("general-purpose-1"); r.Status != lifecycle.Interrupted {
		t.Errorf("cancelled agent: %s, want interrupted", r.Status)
	}
	if r := rec.record("general-purpose-2"); r.Status != lifecycle.Completed || r.Result != "done FAST" {
		t.Errorf("its sibling: %s %q, want completed \"done FAST\"", r.Status, r.Result)
	}
	if !rec.settled() {
		t.Error("not settled after the lead's turn and both sub-agents ended")
	}
	if err := s.CancelAgent("general-purpose-9"); err == nil || !strings.Contains(err.Error(), "general-purpose-9") {
		t.Errorf("CancelAgent of an unknown id = %v, want an error naming it", err)
	}
}
