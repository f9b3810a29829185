package opencode

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/procgroup"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// twoTasks: the lead starts a slow and a fast sub-agent in one response,
// and answers once both task calls returned.
const twoTasks = `
rules:
  - name: sub-SLOW
    match: {last_user_contains: SUBTASK-SLOW, tools_include: [bash]}
    respond: {text: done SLOW, delay_ms: 30000}
  - name: sub-FAST
    match: {last_user_contains: SUBTASK-FAST, tools_include: [bash]}
    respond: {text: done FAST, delay_ms: 500}
  - name: lead-final
    match: {tools_include: [task], tool_results_contain_all: [done FAST]}
    respond: {text: The fast one is done.}
  - name: lead-two
    match: {last_user_contains: CAP-TWO, tools_include: [task], has_tool_results: false}
    respond:
      tool_calls:
        - {name: task, input: {description: Slow task, subagent_type: general, prompt: "SUBTASK-SLOW: report when finished."}}
        - {name: task, input: {description: Fast task, subagent_type: general, prompt: "SUBTASK-FAST: report when finished."}}
  - name: other
    respond: {text: Atomic}
`

// recorder keeps the events and applies them to a lifecycle.State.
type recorder struct {
	mu    sync.Mutex
	evs   []event.Event
	state lifecycle.State
}

func (r *recorder) Emit(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, e)
	r.state.Apply(e)
}

func (r *recorder) record(id string) (lifecycle.Record, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state.Get(id)
}

// startReal starts a session of the real OpenCode CLI (skipped without
// it) in workspace against srv, with a throwaway home.
func startReal(t *testing.T, srv *loopback.Server, workspace string, gate *permission.Gate, sink event.Sink) *Session {
	t.Helper()
	bin := testkit.OpenCodeCLI(t)
	home := t.TempDir()
	for _, kv := range [][2]string{{"HOME", home}, {"XDG_CONFIG_HOME", filepath.Join(home, "c")},
		{"XDG_DATA_HOME", filepath.Join(home, "d")}, {"XDG_STATE_HOME", filepath.Join(home, "s")}, {"XDG_CACHE_HOME", filepath.Join(home, "k")}} {
		t.Setenv(kv[0], kv[1])
	}
	s, err := New(backend.Config{SessionID: "s1", Workspace: workspace, Bin: bin, BaseURL: srv.URL() + "/v1", Model: "gpt-test",
		Gate: gate, Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A sub-agent's approval waiting in the prompt queue is withdrawn when
// the sub-agent is stopped (an interrupt, or /tasks cancelling it alone).
func TestRealStoppingASubagentWithdrawsItsPendingApprovalAndTheCommandNeverRuns(t *testing.T) {
	testkit.CheckStoppingWithdrawsApproval(t, func(t *testing.T, gate *permission.Gate) testkit.PermTurn {
		work := t.TempDir()
		s := startReal(t, testkit.Loopback(t, testkit.OpenCodePerm), work, gate, &recorder{})
		t.Cleanup(func() { _ = s.Close() })
		return testkit.PermTurn{Workspace: work, CancelAgent: s.CancelAgent, Run: func(ctx context.Context) error {
			_, err := s.Run(ctx, "CAP-PERM: have a sub-agent write a file.")
			return err
		}}
	}, "general-1", nil)
}

func TestRealCancelAgentAbortsOnlyThatSubagentAndCloseLeavesNoProcess(t *testing.T) {
	srv := testkit.Loopback(t, twoTasks)
	rec := &recorder{}
	start := time.Now()
	s := startReal(t, srv, t.TempDir(), allowAll(t), rec)
	ready := time.Since(start)
	pid := s.PID()
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	done := make(chan error, 1)
	var res *Result
	go func() {
		var err error
		res, err = s.Run(ctx, "CAP-TWO: start a slow and a fast sub-agent.")
		done <- err
	}()
	slow := ""
	for deadline := time.Now().Add(60 * time.Second); slow == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the slow sub-agent's request never came")
		}
		for _, e := range loopback.ByRule(srv.Log(), "sub-SLOW") {
			if !e.Done() {
				if r, ok := rec.record("general-1"); ok && r.Description == "Slow task" {
					slow = "general-1"
				} else {
					slow = "general-2"
				}
			}
		}
	}
	if err := s.CancelAgent(slow); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if res.Text != "The fast one is done." {
		t.Errorf("the lead answered %q, want its answer after both task calls returned", res.Text)
	}
	fast := map[string]string{"general-1": "general-2", "general-2": "general-1"}[slow]
	if r, _ := rec.record(slow); r.Status != lifecycle.Interrupted {
		t.Errorf("cancelled %s is %s, want interrupted", slow, r.Status)
	}
	if r, _ := rec.record(fast); r.Status != lifecycle.Completed || r.Result != "done FAST" {
		t.Errorf("%s is %s %q, want completed \"done FAST\"", fast, r.Status, r.Result)
	}
	if err := s.CancelAgent("nobody-1"); err == nil {
		t.Errorf("cancelling an unknown sub-agent succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := procgroup.Signal(pid, 0); err == nil {
		t.Fatalf("process group %d alive after Close", pid)
	}
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Errorf("config dir %s: %v, want removed", s.dir, err)
	}
	t.Logf("opencode serve ready (listening, events, session) in %v", ready)
}
