//go:build unix

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// codexBin is the Codex CLI the tests drive.
func codexBin(t testing.TB) string { return testkit.CodexCLI(t) }

// codexCommand builds `atomic run --backend codex` against baseURL (the
// loopback's /v1).
func codexCommand(t *testing.T, ctx context.Context, baseURL, bin string, args ...string) cliRun {
	return cliCommand(t, ctx, "codex", baseURL, bin, args...)
}

// runCodex runs `atomic run --backend codex` to its end.
func runCodex(t *testing.T, baseURL, bin string, args ...string) (result, cliRun) {
	return runCLI(t, "codex", baseURL, bin, args...)
}

// codexProcesses are the live Codex processes of a run.
func codexProcesses(bin, home string) []string { return cliProcesses(bin, home, "CODEX_HOME=") }

// cliProcesses are the live processes of an external CLI in a run:
// processes other than atomic that carry the run's home in their
// environment and whose command line names the CLI's binary (or its
// install) or whose environment holds marker. Zombies are dead.
func cliProcesses(bin, home, marker string) []string {
	install := filepath.Dir(filepath.Dir(bin)) // node_modules
	var found []string
	dir, _ := os.ReadDir("/proc")
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !alive(pid) {
			continue
		}
		if exe, _ := os.Readlink("/proc/" + e.Name() + "/exe"); exe == binary {
			continue // atomic itself, whose arguments name the binary
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		environ, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		args := strings.ReplaceAll(string(cmdline), "\x00", " ")
		ours := slicesContains(strings.Split(string(environ), "\x00"), "HOME="+home)
		if ours && (strings.Contains(args, bin) || strings.Contains(args, install) || strings.Contains(string(environ), marker)) {
			found = append(found, e.Name()+": "+args)
		}
	}
	return found
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestBackendCodexRunsThreeParallelSubagentsAndCompletesOnceAfterAll(t *testing.T) {
	checkCodexFanOut(t, codexBin(t), testkit.CodexFanOut)
}

// checkCodexFanOut runs the three-sub-agent fan-out of scenario through
// `atomic run --backend codex --backend-bin bin` and checks its
// stream-json: one session per sub-agent, each background until its own
// subagent.complete, which comes once; the answers overlap; complete last
// and once, settled, with the lead's summary and usage. It returns the
// stream's events.
func checkCodexFanOut(t *testing.T, bin, scenario string) []event.Raw {
	t.Helper()
	srv := server(t, scenario)
	r, _ := runCodex(t, srv.URL()+"/v1", bin, "-p", "CAP-FG3: start three sub-agents in parallel, then sum up.", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	if len(evs) == 0 || evs[len(evs)-1].Type != event.Complete {
		t.Fatalf("the stream does not end with complete")
	}
	if d := data[event.CompleteData](t, evs[len(evs)-1]); d.Usage.Total() == 0 {
		t.Errorf("complete reports no usage: the CLI's tokens are not counted")
	}
	completes, lastStart, firstEnd := 0, -1, 1<<30
	sessions := map[string]string{} // agent id → session id
	ended := map[string]bool{}
	st := replay(evs, func(i int, e event.Raw, st *lifecycle.State) {
		switch e.Type {
		case event.Complete:
			completes++
			if !st.Settled() {
				t.Fatalf("complete at event %d while agents are still at work", i)
			}
		case event.SubagentStart:
			lastStart = max(lastStart, i)
			if d := data[event.SubagentStartData](t, e); d.Backend != "codex" || !d.Background {
				t.Errorf("subagent.start of %s: backend %q background %v, want codex and background", e.AgentID, d.Backend, d.Background)
			}
		case event.SubagentComplete:
			firstEnd = min(firstEnd, i)
			if ended[e.AgentID] {
				t.Errorf("%s completed twice", e.AgentID)
			}
			ended[e.AgentID] = true
		}
		if e.AgentID != "" && e.AgentID != "lead" {
			if s, ok := sessions[e.AgentID]; ok && s != e.SessionID {
				t.Errorf("%s of %s has session %q, then %q", e.Type, e.AgentID, s, e.SessionID)
			}
			sessions[e.AgentID] = e.SessionID
		}
		// Codex children run asynchronously: background until their own end.
		for _, rec := range st.Records() {
			if !ended[rec.ID] && rec.Status != lifecycle.Background {
				t.Errorf("after event %d (%s), %s is %s before its subagent.complete", i, e.Type, rec.ID, rec.Status)
			}
		}
	})
	if completes != 1 {
		t.Fatalf("%d complete events, want 1", completes)
	}
	if c := st.Counts(); c.Completed != 3 || c.Total() != 3 {
		t.Fatalf("agents %+v, want three completed", c)
	}
	if len(sessions) != 3 {
		t.Errorf("agent ids %v, want three", sessions)
	}
	seen := map[string]bool{}
	for id, s := range sessions {
		if s == evs[0].SessionID || seen[s] {
			t.Errorf("%s runs in session %q, which is not its own", id, s)
		}
		seen[s] = true
	}
	if lastStart > firstEnd {
		t.Errorf("a sub-agent finished before the last one started: they did not run in parallel")
	}
	if d := data[event.CompleteData](t, evs[len(evs)-1]); d.IsError || !strings.Contains(d.Result, "all done") {
		t.Errorf("complete %+v, want the lead's summary", d)
	}
	// The lead waited in its turn (wait_agent on the spawned ids) and
	// summed up once, after all three answers were in.
	log := srv.Log()
	if n, w := len(loopback.ByRule(log, "lead-final")), len(loopback.ByRule(log, "lead-wait")); n != 1 || w == 0 {
		t.Errorf("lead-final answered %d times, lead-wait %d: want the lead to wait, then sum up once", n, w)
	}
	// The children's 2 s overlap: the whole run is well under 3 × 2 s.
	if r.elapsed > 5500*time.Millisecond {
		t.Errorf("the run took %v: the 2 s answers did not overlap", r.elapsed)
	}
	t.Logf("wall time %v (three 2 s sub-agents through codex app-server)", r.elapsed)
	return evs
}

// codexSlow is the capture's CAP-INT: one sub-agent whose answer takes
// 30 s, and a lead that waits on it.
const codexSlow = `
rules:
  - name: sub-SLOW
    match: {last_user_contains: SUBTASK-SLOW, tools_exclude: [spawn_agent]}
    respond: {text: done SLOW, delay_ms: 30000}
  - name: lead-wait
    match: {has_tool_results: true, tools_include: [wait_agent]}
    respond:
      tool_calls:
        - {name: wait_agent, input: {timeout_ms: 60000}, collect: {json_field: agent_id, into: targets}}
  - name: lead-int
    match: {last_user_contains: CAP-INT, has_tool_results: false}
    respond:
      text: Starting one slow sub-agent.
      tool_calls:
        - {name: spawn_agent, input: {message: "SUBTASK-SLOW: report when finished. Do not use any tools."}}
`

func TestBackendCodexSIGINTInterruptsEveryAgentAndLeavesNoCodexProcess(t *testing.T) {
	bin := codexBin(t)
	srv := server(t, codexSlow)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	run := codexCommand(t, ctx, srv.URL()+"/v1", bin, "-p", "CAP-INT: start a slow sub-agent and wait for it.", "--output-format", "stream-json")
	// Interrupted while the sub-agent's model request is in flight.
	checkSIGINT(t, run.cmd, srv, "sub-SLOW", func() []string { return codexProcesses(bin, run.home) })
}

func TestBackendCodexSubagentCommandNeedingApprovalIsDeniedHeadlessNamingTheFlag(t *testing.T) {
	bin := codexBin(t)
	srv := server(t, testkit.CodexPerm)
	r, run := runCodex(t, srv.URL()+"/v1", bin, "-p", "CAP-PERM: have a sub-agent write a file.", "--output-format", "stream-json")
	checkHeadlessDenial(t, r, run.dir, "--permission-mode bypassPermissions")
}

func TestBackendCodexMissingCLISaysWhatToInstallAndExits1(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run := codexCommand(t, ctx, "http://127.0.0.1:9/v1", "/nonexistent/codex", "-p", "hi")
	checkMissingCLI(t, ctx, run.cmd, "codex", "/nonexistent/codex", "@openai/codex")
}
