package copilot

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// recorder is a sink that applies every event to a lifecycle.State.
type recorder struct {
	mu     sync.Mutex
	state  lifecycle.State
	events []event.Event
}

func (r *recorder) Emit(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	r.state.Apply(e)
}

func (r *recorder) snapshot() ([]event.Event, lifecycle.State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event(nil), r.events...), r.state
}

// startReal starts a Session on the real CLI against srv, in a throwaway
// home (the CLI keeps its session state there).
func startReal(t *testing.T, srv *loopback.Server, rec *recorder) *Session {
	t.Helper()
	return startRealIn(t, srv, rec, testkit.AllowAll(t), t.TempDir())
}

// startRealIn is startReal with the gate and the workspace given.
func startRealIn(t *testing.T, srv *loopback.Server, rec *recorder, gate *permission.Gate, workspace string) *Session {
	t.Helper()
	bin := testkit.CopilotCLI(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home+"/.config")
	t.Setenv("XDG_STATE_HOME", home+"/.local/state")
	start := time.Now()
	s, err := New(backend.Config{SessionID: "s1", Workspace: workspace, Bin: bin, BaseURL: srv.URL() + "/v1",
		Model: "gpt-test", APIKey: "test-key", Gate: gate, Sink: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("copilot started and its session created in %v", time.Since(start))
	return s
}

// A sub-agent's approval waiting in the prompt queue is withdrawn when
// the sub-agent is stopped (an interrupt, or /tasks cancelling it alone).
func TestRealCopilotStoppingASubagentWithdrawsItsPendingApprovalAndTheCommandNeverRuns(t *testing.T) {
	testkit.CheckStoppingWithdrawsApproval(t, func(t *testing.T, gate *permission.Gate) testkit.PermTurn {
		work := t.TempDir()
		s := startRealIn(t, testkit.Loopback(t, testkit.CopilotPerm), &recorder{}, gate, work)
		t.Cleanup(func() { _ = s.Close() })
		return testkit.PermTurn{Workspace: work, CancelAgent: s.CancelAgent, Run: func(ctx context.Context) error {
			_, err := s.Run(ctx, "CAP-PERM: have a sub-agent write a file.")
			return err
		}}
	}, "general-purpose-1", nil)
}

func TestRealCopilotRunsThreeSyncSubagentsInParallelAndLeavesNoProcessAfterClose(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the session's processes are found through /proc, which only Linux has")
	}
	srv := testkit.Loopback(t, testkit.CopilotFanOut)
	rec := &recorder{}
	s := startReal(t, srv, rec)
	if s.pid == 0 {
		s.Close()
		t.Fatal("the CLI's process was not found by its mark: the leftover check would prove nothing")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	start := time.Now()
	res, err := s.Run(ctx, "CAP-FG3: start three sub-agents in parallel, then sum up.")
	took := time.Since(start)
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "all done") || res.Usage.Total() == 0 {
		t.Errorf("result %q usage %+v, want the summary and the lead's tokens", res.Text, res.Usage)
	}
	evs, st := rec.snapshot()
	if c := st.Counts(); c.Completed != 3 || c.Total() != 3 {
		t.Errorf("agents %+v, want three completed", c)
	}
	lastStart, firstEnd := -1, len(evs)
	for i, e := range evs {
		switch e.Type {
		case event.SubagentStart:
			lastStart = max(lastStart, i)
		case event.SubagentComplete:
			firstEnd = min(firstEnd, i)
		}
	}
	if lastStart > firstEnd || took > 5500*time.Millisecond {
		t.Errorf("the 2 s sub-agents did not overlap (last start %d, first end %d, turn %v)", lastStart, firstEnd, took)
	}
	mark := s.mark
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left := marked(mark); len(left) > 0 {
		t.Fatalf("processes %v of the session outlived Close", left)
	}
	t.Logf("turn with three 2 s sub-agents: %v", took)
}

func TestRealCopilotBackgroundSubagentWakesTheLeadWithItsResult(t *testing.T) {
	srv := testkit.Loopback(t, testkit.CopilotBackground)
	rec := &recorder{}
	s := startReal(t, srv, rec)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, err := s.Run(ctx, "CAP-BG1: start one sub-agent in the background and tell me when it is done."); err != nil {
		t.Fatal(err)
	}
	if _, st := rec.snapshot(); st.Counts().Background != 1 {
		t.Fatalf("after the first turn: %+v, want the sub-agent in the background", st.Counts())
	}
	deadline := time.Now().Add(30 * time.Second)
	for !s.Pending() {
		if time.Now().After(deadline) {
			t.Fatal("the background sub-agent's end never woke the lead")
		}
		time.Sleep(20 * time.Millisecond)
	}
	res, err := s.Run(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Background sub-agent DELTA finished. (BG done)" {
		t.Errorf("woken turn's text %q", res.Text)
	}
	if _, st := rec.snapshot(); st.Counts().Completed != 1 || !st.Settled() {
		t.Errorf("after the woken turn: %+v", st.Counts())
	}
	if s.Pending() {
		t.Error("still pending after the woken turn was carried")
	}
}

// bgDuringTurn: the background sub-agent answers in 0.5 s while the lead's
// own model call takes 4 s.
const bgDuringTurn = `
rules:
  - name: sub-DELTA
    match: {last_user_contains: SUBTASK-DELTA, has_tool_results: false}
    respond: {text: done DELTA, delay_ms: 500}
  - name: lead-bg-final
    match: {tool_results_contain_all: [done DELTA]}
    respond: {text: "Background sub-agent DELTA finished. (BG done)"}
  - name: lead-bg-ack
    match: {last_user_contains: CAP-BG1, has_tool_results: true}
    respond: {text: "The background sub-agent is running.", delay_ms: 4000}
  - name: lead-bg
    match: {last_user_contains: CAP-BG1, has_tool_results: false}
    respond:
      text: Starting one background sub-agent.
      tool_calls:
        - {name: task, input: {name: delta, description: Background delta, agent_type: general-purpose, mode: background, prompt: "SUBTASK-DELTA: report that you are finished. Do not use any tools."}}
`

// TestRealCopilotBackgroundEndDuringTheLeadsTurnIsReportedInThatTurn pins
// what the CLI does when a background sub-agent ends while its lead is
// busy: the result joins the same turn (its own read_agent call), so the
// turn's end leaves nothing pending and no later turn comes.
func TestRealCopilotBackgroundEndDuringTheLeadsTurnIsReportedInThatTurn(t *testing.T) {
	srv := testkit.Loopback(t, bgDuringTurn)
	rec := &recorder{}
	s := startReal(t, srv, rec)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.Run(ctx, "CAP-BG1: start one sub-agent in the background and tell me when it is done.")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Background sub-agent DELTA finished. (BG done)" {
		t.Fatalf("turn's text %q, want the report of the background result", res.Text)
	}
	if _, st := rec.snapshot(); !st.Settled() || st.Counts().Completed != 1 {
		t.Fatalf("at the turn's end: %+v, want the background agent completed", st.Counts())
	}
	time.Sleep(2 * time.Second) // a turn the CLI would begin by itself comes at once
	if s.Pending() {
		t.Fatal("pending after a turn that already reported the background result")
	}
	if n := len(loopback.ByRule(srv.Log(), "lead-bg-final")); n != 1 {
		t.Fatalf("lead-bg-final answered %d times, want once", n)
	}
}

// bgSlow: a background sub-agent whose answer takes 30 s.
const bgSlow = `
rules:
  - name: sub-SLOW
    match: {last_user_contains: SUBTASK-SLOW, has_tool_results: false}
    respond: {text: done SLOW, delay_ms: 30000}
  - name: lead-ack
    match: {last_user_contains: CAP-BGSLOW, has_tool_results: true}
    respond: {text: "It runs in the background."}
  - name: lead-bg
    match: {last_user_contains: CAP-BGSLOW, has_tool_results: false}
    respond:
      text: Starting one slow background sub-agent.
      tool_calls:
        - {name: task, input: {name: slow, description: Slow background, agent_type: general-purpose, mode: background, prompt: "SUBTASK-SLOW: report when finished. Do not use any tools."}}
`

func TestRealCopilotCancelAgentStopsABackgroundSubagentInTheCLI(t *testing.T) {
	srv := testkit.Loopback(t, bgSlow)
	rec := &recorder{}
	s := startReal(t, srv, rec)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := s.Run(ctx, "CAP-BGSLOW: start a slow sub-agent in the background."); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 20*time.Second, "the slow sub-agent's request", func() bool { return len(loopback.ByRule(srv.Log(), "sub-SLOW")) == 1 })
	if err := s.CancelAgent("general-purpose-1"); err != nil {
		t.Fatal(err)
	}
	if _, st := rec.snapshot(); st.Counts().Interrupted != 1 || !st.Settled() {
		t.Fatalf("after CancelAgent: %+v, want the agent interrupted", st.Counts())
	}
	// The CLI really stopped it: its model request was dropped, long
	// before its 30 s answer.
	testkit.WaitFor(t, 10*time.Second, "the cancelled request to end", func() bool { return loopback.ByRule(srv.Log(), "sub-SLOW")[0].Done() })
	time.Sleep(time.Second)
	if s.Pending() {
		t.Error("a cancelled sub-agent woke the lead")
	}
	if err := s.CancelAgent("general-purpose-1"); err == nil {
		t.Error("cancelling an agent that has ended again: no error")
	}
}
