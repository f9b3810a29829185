//go:build unix

package codex

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// realCodex finds the real codex binary: ATOMIC_TEST_CODEX names it (or,
// when not a path, asks for the one on PATH). Missing, the test skips,
// except under CI=true with ATOMIC_TEST_CODEX set, where it fails.
func realCodex(t *testing.T) string {
	t.Helper()
	want := os.Getenv("ATOMIC_TEST_CODEX")
	if want != "" {
		if _, err := os.Stat(want); err == nil {
			return want
		}
	}
	if p, err := exec.LookPath("codex"); err == nil {
		return p
	}
	if want != "" && os.Getenv("CI") == "true" {
		t.Fatalf("ATOMIC_TEST_CODEX=%q: no codex binary there or on PATH", want)
	}
	t.Skip("codex CLI not installed (npm install @openai/codex@0.169.0; set ATOMIC_TEST_CODEX to its path)")
	return ""
}

func TestRealCodexAppServerInitializesStartsAThreadAndCloses(t *testing.T) {
	bin := realCodex(t)
	rec := &recorder{}
	// A base URL makes a throwaway CODEX_HOME: the user's config stays
	// untouched, and no model request is made before a turn.
	start := time.Now()
	s, err := New(backend.Config{SessionID: "s1", Workspace: t.TempDir(), Bin: bin, BaseURL: "http://127.0.0.1:9/v1", Model: "gpt-5", Gate: newGate(t, nil), Sink: rec})
	if err != nil {
		t.Fatal(err)
	}
	ready := time.Since(start)
	pid := s.cmd.Process.Pid
	if s.threadID() == "" || s.Model() != "gpt-5" {
		t.Fatalf("thread %q model %q", s.threadID(), s.Model())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !gone(pid) {
		t.Fatalf("codex %d alive after Close", pid)
	}
	t.Logf("codex app-server ready (initialize + thread/start) in %v", ready)
}

// realLoopbackSession starts the real CLI as the lead "lead" on model,
// answered by a loopback server scripted by scenario, every call allowed;
// ctx bounds the test to a minute.
func realLoopbackSession(t *testing.T, scenario, model string) (*Session, *loopback.Server, *recorder, context.Context) {
	t.Helper()
	bin := realCodex(t)
	srv := testkit.Loopback(t, scenario)
	rec := &recorder{}
	s, err := New(backend.Config{SessionID: "s1", AgentID: "lead", Workspace: t.TempDir(), Bin: bin, BaseURL: srv.URL() + "/v1",
		Model: model, Gate: allowAll(t), Sink: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return s, srv, rec, ctx
}

// codexCancelOne spawns a sub-agent whose answer takes 30 s and one whose
// answer takes 3 s; the lead waits until the fast one has answered.
const codexCancelOne = `
rules:
  - name: sub-SLOW
    match: {last_user_contains: SUBTASK-SLOW, tools_exclude: [spawn_agent]}
    respond: {text: done SLOW, delay_ms: 30000}
  - name: sub-FAST
    match: {last_user_contains: SUBTASK-FAST, tools_exclude: [spawn_agent]}
    respond: {text: done FAST, delay_ms: 3000}
  - name: lead-final
    match: {tool_results_contain_all: [done FAST]}
    respond: {text: FAST is done.}
  - name: lead-wait
    match: {has_tool_results: true, tools_include: [wait_agent]}
    respond:
      tool_calls:
        - {name: wait_agent, input: {timeout_ms: 60000}, collect: {json_field: agent_id, into: targets}}
  - name: lead-two
    match: {last_user_contains: CAP-CANCEL, has_tool_results: false}
    respond:
      text: Starting two sub-agents.
      tool_calls:
        - {name: spawn_agent, input: {message: "SUBTASK-SLOW: report when finished. Do not use any tools."}}
        - {name: spawn_agent, input: {message: "SUBTASK-FAST: report when finished. Do not use any tools."}}
`

// A sub-agent's approval waiting in the prompt queue is withdrawn when
// the sub-agent is stopped (an interrupt, or /tasks cancelling it alone).
// CodexPerm's lead waits on for "done PERM" after the cancel.
func TestRealCodexStoppingASubagentWithdrawsItsPendingApprovalAndTheCommandNeverRuns(t *testing.T) {
	bin := realCodex(t)
	testkit.CheckStoppingWithdrawsApproval(t, func(t *testing.T, gate *permission.Gate) testkit.PermTurn {
		work := t.TempDir()
		s, err := New(backend.Config{SessionID: "s1", Workspace: work, Bin: bin, BaseURL: testkit.Loopback(t, testkit.CodexPerm).URL() + "/v1",
			Model: "gpt-test", Gate: gate, Sink: &recorder{}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return testkit.PermTurn{Workspace: work, CancelAgent: s.CancelAgent, Run: func(ctx context.Context) error {
			_, err := s.Run(ctx, "CAP-PERM: have a sub-agent write a file.")
			return err
		}}
	}, "general-purpose-1", testkit.ErrLeadGoesOn)
}

func TestRealCodexCancelAgentInterruptsOneSubagentWhileTheLeadAndItsSiblingGoOn(t *testing.T) {
	s, srv, rec, ctx := realLoopbackSession(t, codexCancelOne, "gpt-test")
	// The slow agent is cancelled once its model request is in flight, so
	// its turn is certainly under way.
	cancelled := make(chan error, 1)
	go func() {
		for ctx.Err() == nil {
			for _, e := range srv.Log() {
				if e.Rule == "sub-SLOW" {
					cancelled <- s.CancelAgent(slowAgent(rec))
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	res, err := s.Run(ctx, "CAP-CANCEL: start two sub-agents, then wait for the fast one.")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-cancelled:
		if err != nil {
			t.Fatalf("CancelAgent: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the slow sub-agent's request never reached the model server")
	}
	if res.StopReason != "end_turn" || res.Text != "FAST is done." {
		t.Fatalf("lead turn = %+v, want it to go on to its own end", res)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !rec.settled() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	slow, fast := rec.record(slowAgent(rec)), rec.record(fastAgent(rec))
	if slow.Status != lifecycle.Interrupted {
		t.Errorf("slow sub-agent %s is %s, want interrupted", slow.ID, slow.Status)
	}
	if fast.Status != lifecycle.Completed || fast.Result != "done FAST" {
		t.Errorf("fast sub-agent %s is %s %q, want completed \"done FAST\"", fast.ID, fast.Status, fast.Result)
	}
	for _, e := range srv.Log() {
		if e.Rule == "sub-SLOW" && e.End.Sub(e.Start) > 20*time.Second {
			t.Errorf("the slow sub-agent's model request ran %v: its turn was not interrupted", e.End.Sub(e.Start))
		}
	}
}

// slowAgent and fastAgent are the ids of the sub-agents whose prompts
// name SUBTASK-SLOW and SUBTASK-FAST ("" until spawned).
func slowAgent(rec *recorder) string { return agentWithPrompt(rec, "SUBTASK-SLOW") }
func fastAgent(rec *recorder) string { return agentWithPrompt(rec, "SUBTASK-FAST") }

func agentWithPrompt(rec *recorder, marker string) string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, r := range rec.state.Records() {
		if strings.Contains(r.Prompt, marker) {
			return r.ID
		}
	}
	return ""
}
