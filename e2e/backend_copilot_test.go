//go:build unix

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// runCopilot runs `atomic run --backend copilot` to its end.
func runCopilot(t *testing.T, baseURL, bin string, args ...string) (result, cliRun) {
	return runCLI(t, "copilot", baseURL, bin, args...)
}

// completeOnceAfterAll asserts the stream ends with its one complete,
// emitted when nothing was at work any more.
func completeOnceAfterAll(t *testing.T, evs []event.Raw) *lifecycle.State {
	t.Helper()
	if len(evs) == 0 || evs[len(evs)-1].Type != event.Complete {
		t.Fatal("the stream does not end with complete")
	}
	completes := 0
	st := replay(evs, func(i int, e event.Raw, st *lifecycle.State) {
		if e.Type == event.Complete {
			completes++
			if !st.Settled() {
				t.Errorf("complete at event %d while agents are still at work", i)
			}
		}
		if e.Type == event.SubagentStart {
			if d := data[event.SubagentStartData](t, e); d.Backend != "copilot" {
				t.Errorf("subagent.start of %s: backend %q, want copilot", e.AgentID, d.Backend)
			}
		}
	})
	if completes != 1 {
		t.Fatalf("%d complete events, want 1", completes)
	}
	return st
}

func TestBackendCopilotRunsThreeParallelSubagentsAndCompletesOnceAfterAll(t *testing.T) {
	bin := testkit.CopilotCLI(t)
	srv := server(t, testkit.CopilotFanOut)
	r, _ := runCopilot(t, srv.URL()+"/v1", bin, "-p", "CAP-FG3: start three sub-agents in parallel, then sum up.", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	st := completeOnceAfterAll(t, evs)
	if c := st.Counts(); c.Completed != 3 || c.Total() != 3 {
		t.Fatalf("agents %+v, want three completed", c)
	}
	lastStart, firstEnd := -1, len(evs)
	sessions := map[string]bool{}
	for i, e := range evs {
		switch e.Type {
		case event.SubagentStart:
			lastStart = max(lastStart, i)
			sessions[e.SessionID] = true
		case event.SubagentComplete:
			firstEnd = min(firstEnd, i)
		}
	}
	if len(sessions) != 3 || sessions[evs[0].SessionID] {
		t.Errorf("sub-agent sessions %v, want three of their own", sessions)
	}
	if lastStart > firstEnd {
		t.Error("a sub-agent finished before the last one started: they did not run in parallel")
	}
	last := data[event.CompleteData](t, evs[len(evs)-1])
	if last.IsError || !strings.Contains(last.Result, "all done") || last.Usage.Total() == 0 {
		t.Errorf("complete %+v, want the lead's summary and the CLI's tokens", last)
	}
	if n := len(loopback.ByRule(srv.Log(), "lead-final")); n != 1 {
		t.Errorf("lead-final answered %d times, want once", n)
	}
	// The three 2 s answers were in flight at once: each began before any
	// ended.
	var subs []loopback.LogEntry
	for _, rule := range []string{"sub-ALPHA", "sub-BETA", "sub-GAMMA"} {
		subs = append(subs, loopback.ByRule(srv.Log(), rule)...)
	}
	if len(subs) != 3 {
		t.Fatalf("%d sub-agent requests, want 3", len(subs))
	}
	for _, a := range subs {
		for _, b := range subs {
			if !a.Start.Before(b.End) {
				t.Errorf("a sub-agent's request began at %v, after another's ended at %v: they did not overlap", a.Start, b.End)
			}
		}
	}
	t.Logf("wall time %v (three 2 s sub-agents through copilot --headless)", r.elapsed)
}

func TestBackendCopilotRunWaitsForItsBackgroundSubagentAndReportsItsResult(t *testing.T) {
	bin := testkit.CopilotCLI(t)
	srv := server(t, testkit.CopilotBackground)
	r, _ := runCopilot(t, srv.URL()+"/v1", bin, "-p", "CAP-BG1: start one sub-agent in the background and tell me when it is done.", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	st := completeOnceAfterAll(t, evs)
	recs := st.Records()
	if len(recs) != 1 || recs[0].Status != lifecycle.Completed || !recs[0].Background || recs[0].Result != "done DELTA" {
		t.Fatalf("agents %+v, want one background agent completed with done DELTA", recs)
	}
	// Background until its own end, which came after its model answered.
	seq := statusesByAgent(t, evs)[recs[0].ToolCallID]
	if len(seq) != 2 || seq[0] != lifecycle.Background || seq[1] != lifecycle.Completed {
		t.Errorf("statuses %v, want background then completed", seq)
	}
	answered := loopback.ByRule(srv.Log(), "sub-DELTA")
	if len(answered) != 1 || !answered[0].Done() {
		t.Fatalf("sub-DELTA answered %d times", len(answered))
	}
	if r.elapsed < 3*time.Second {
		t.Errorf("the run took %v, less than the sub-agent's 3 s answer: it did not wait", r.elapsed)
	}
	if d := data[event.CompleteData](t, evs[len(evs)-1]); d.Result != "Background sub-agent DELTA finished. (BG done)" {
		t.Errorf("complete's result %q, want the woken lead's report", d.Result)
	}
}

// copilotProcesses are the live Copilot CLI processes of a run: the SDK
// gives each the session's ATOMIC_COPILOT_SESSION.
func copilotProcesses(bin, home string) []string {
	return cliProcesses(bin, home, "ATOMIC_COPILOT_SESSION=")
}

func TestBackendCopilotSIGINTInterruptsEveryAgentAndLeavesNoCopilotProcess(t *testing.T) {
	bin := testkit.CopilotCLI(t)
	srv := server(t, testkit.CopilotSlow)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	run := cliCommand(t, ctx, "copilot", srv.URL()+"/v1", bin, "-p", "CAP-INT: start a slow sub-agent.", "--output-format", "stream-json")
	took := checkSIGINT(t, run.cmd, srv, "sub-SLOW", func() []string { return copilotProcesses(bin, run.home) })
	t.Logf("SIGINT to exit: %v", took)
}

func TestBackendCopilotSubagentCommandNeedingApprovalIsDeniedHeadlessNamingTheFlag(t *testing.T) {
	bin := testkit.CopilotCLI(t)
	srv := server(t, testkit.CopilotPerm)
	r, run := runCopilot(t, srv.URL()+"/v1", bin, "-p", "CAP-PERM: have a sub-agent write a file.", "--output-format", "stream-json")
	checkHeadlessDenial(t, r, run.dir, "--permission-mode bypassPermissions")
	completeOnceAfterAll(t, events(t, r.stdout))
}

func TestBackendCopilotMissingCLISaysWhatToInstallAndExits1(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run := cliCommand(t, ctx, "copilot", "http://127.0.0.1:9/v1", "/nonexistent/copilot", "-p", "hi")
	checkMissingCLI(t, ctx, run.cmd, "copilot", "/nonexistent/copilot", "@github/copilot")
}
