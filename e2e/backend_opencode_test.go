//go:build unix

package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// opencodeCommand builds `atomic run --backend opencode` against baseURL
// (the loopback's /v1, spoken as OpenAI Chat Completions by OpenCode's
// OpenAI-compatible provider).
func opencodeCommand(t *testing.T, ctx context.Context, baseURL, bin string, args ...string) cliRun {
	return cliCommand(t, ctx, "opencode", baseURL, bin, args...)
}

// runOpenCode runs `atomic run --backend opencode` to its end.
func runOpenCode(t *testing.T, baseURL, bin string, args ...string) (result, cliRun) {
	return runCLI(t, "opencode", baseURL, bin, args...)
}

// opencodeProcesses are the live OpenCode processes of a run.
func opencodeProcesses(bin, home string) []string {
	return cliProcesses(bin, home, "OPENCODE_CONFIG=")
}

func TestBackendOpenCodeRunsThreeParallelSubagentsAndCompletesOnceAfterAll(t *testing.T) {
	bin := testkit.OpenCodeCLI(t)
	srv := server(t, testkit.OpenCodeFanOut)
	r, run := runOpenCode(t, srv.URL()+"/v1", bin, "-p", "CAP-FG3: start three sub-agents in parallel, then sum up.", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	if len(evs) == 0 || evs[len(evs)-1].Type != event.Complete {
		t.Fatalf("the stream does not end with complete")
	}
	last := data[event.CompleteData](t, evs[len(evs)-1])
	if last.Usage.Total() == 0 {
		t.Errorf("complete reports no usage: the CLI's tokens are not counted")
	}
	if last.IsError || !strings.Contains(last.Result, "all done") {
		t.Errorf("complete %+v, want the lead's summary", last)
	}
	completes, lastStart, firstEnd := 0, -1, 1<<30
	sessions := map[string]string{}
	st := replay(evs, func(i int, e event.Raw, st *lifecycle.State) {
		switch e.Type {
		case event.Complete:
			completes++
			if !st.Settled() {
				t.Fatalf("complete at event %d while agents are still at work", i)
			}
		case event.SubagentStart:
			lastStart = max(lastStart, i)
			if d := data[event.SubagentStartData](t, e); d.Backend != "opencode" || d.Background {
				t.Errorf("subagent.start of %s: backend %q background %v, want opencode, sync", e.AgentID, d.Backend, d.Background)
			}
		case event.SubagentComplete:
			firstEnd = min(firstEnd, i)
		}
		if e.AgentID != "" && e.AgentID != "lead" {
			if s, ok := sessions[e.AgentID]; ok && s != e.SessionID {
				t.Errorf("%s of %s has session %q, then %q", e.Type, e.AgentID, s, e.SessionID)
			}
			sessions[e.AgentID] = e.SessionID
		}
	})
	if completes != 1 {
		t.Fatalf("%d complete events, want 1", completes)
	}
	if c := st.Counts(); c.Completed != 3 || c.Total() != 3 {
		t.Fatalf("agents %+v, want three completed", c)
	}
	for _, rec := range st.Records() {
		if !strings.HasPrefix(rec.Result, "done ") {
			t.Errorf("%s's result %q, want its own answer", rec.ID, rec.Result)
		}
	}
	if lastStart > firstEnd {
		t.Errorf("a sub-agent finished before the last one started: they did not run in parallel")
	}
	if n := len(loopback.ByRule(srv.Log(), "lead-final")); n != 1 {
		t.Errorf("lead-final answered %d times, want once", n)
	}
	// The 2 s answers overlap: three in a row would take 6 s.
	if w := subagentWindow(srv.Log()); w > 4*time.Second {
		t.Errorf("the sub-agents' requests spanned %v: the 2 s answers did not overlap", w)
	}
	if left := opencodeProcesses(bin, run.home); len(left) > 0 {
		t.Errorf("opencode processes outlived atomic: %q", left)
	}
	t.Logf("wall time %v (three 2 s sub-agents through opencode serve)", r.elapsed)
}

// subagentWindow is the time from the first sub-agent request's start to
// the last one's end.
func subagentWindow(log []loopback.LogEntry) time.Duration {
	var first, last time.Time
	for _, e := range log {
		if !strings.HasPrefix(e.Rule, "sub-") {
			continue
		}
		if first.IsZero() || e.Start.Before(first) {
			first = e.Start
		}
		if e.End.After(last) {
			last = e.End
		}
	}
	return last.Sub(first)
}

func TestBackendOpenCodeBackgroundSubagentStaysBackgroundAndTheRunWaitsForIt(t *testing.T) {
	bin := testkit.OpenCodeCLI(t)
	srv := server(t, testkit.OpenCodeBackground)
	r, _ := runOpenCode(t, srv.URL()+"/v1", bin, "-p", "CAP-BG: start one background sub-agent.", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	ended, completes := false, 0
	st := replay(evs, func(i int, e event.Raw, st *lifecycle.State) {
		switch e.Type {
		case event.SubagentStart:
			if d := data[event.SubagentStartData](t, e); !d.Background || d.Backend != "opencode" {
				t.Errorf("subagent.start %+v, want a background opencode sub-agent", d)
			}
		case event.SubagentComplete:
			ended = true
		case event.Complete:
			completes++
			if !ended {
				t.Fatalf("complete at event %d before the background sub-agent's own end", i)
			}
		}
		for _, rec := range st.Records() {
			if !ended && rec.Status != lifecycle.Background {
				t.Errorf("after event %d (%s), %s is %s before its subagent.complete", i, e.Type, rec.ID, rec.Status)
			}
		}
	})
	if completes != 1 || evs[len(evs)-1].Type != event.Complete {
		t.Fatalf("%d complete events (last %s), want one, last", completes, evs[len(evs)-1].Type)
	}
	recs := st.Records()
	if len(recs) != 1 || recs[0].Status != lifecycle.Completed || recs[0].Result != "done BGX" {
		t.Fatalf("records %+v, want one completed \"done BGX\"", recs)
	}
	// The lead's turn ended before the answer, then the completion woke it.
	log := srv.Log()
	ack, final, sub := loopback.ByRule(log, "lead-bg-ack"), loopback.ByRule(log, "lead-bg-final"), loopback.ByRule(log, "sub-BGX")
	if len(ack) != 1 || len(final) != 1 || len(sub) != 1 {
		t.Fatalf("lead-bg-ack %d, lead-bg-final %d, sub-BGX %d answers, want one each", len(ack), len(final), len(sub))
	}
	if !ack[0].End.Before(sub[0].End) {
		t.Errorf("the lead's turn ended after the sub-agent answered: the task was not in the background")
	}
	if d := data[event.CompleteData](t, evs[len(evs)-1]); !strings.Contains(d.Result, "BGX finished") {
		t.Errorf("complete %+v, want the lead's answer to the completion", d)
	}
}

func TestBackendOpenCodeSIGINTInterruptsEveryAgentAndLeavesNoOpenCodeProcess(t *testing.T) {
	bin := testkit.OpenCodeCLI(t)
	srv := server(t, testkit.OpenCodeSlow)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	run := opencodeCommand(t, ctx, srv.URL()+"/v1", bin, "-p", "CAP-INT: start a slow sub-agent and wait for it.", "--output-format", "stream-json")
	// Interrupted while the sub-agent's model request is in flight.
	checkSIGINT(t, run.cmd, srv, "sub-SLOW", func() []string { return opencodeProcesses(bin, run.home) })
}

func TestBackendOpenCodeSubagentCommandNeedingApprovalIsDeniedHeadlessNamingTheFlag(t *testing.T) {
	bin := testkit.OpenCodeCLI(t)
	srv := server(t, testkit.OpenCodePerm)
	r, run := runOpenCode(t, srv.URL()+"/v1", bin, "-p", "CAP-PERM: have a sub-agent write a file.", "--output-format", "stream-json")
	checkHeadlessDenial(t, r, run.dir, "--allowed-tools")
}

func TestBackendOpenCodeMissingCLISaysWhatToInstallAndExits1(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run := opencodeCommand(t, ctx, "http://127.0.0.1:9/v1", "/nonexistent/opencode", "-p", "hi")
	checkMissingCLI(t, ctx, run.cmd, "opencode", "/nonexistent/opencode", "opencode-ai")
	// The config file's backend: opencode selects it the same way.
	cfgHome := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfgHome, "atomic"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := `{"backend": "opencode", "backend_bin": "/nonexistent/opencode-from-config"}`
	if err := os.WriteFile(filepath.Join(cfgHome, "atomic", "config.json"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, binary, "run", "-p", "hi")
	cmd.Dir, cmd.Env = t.TempDir(), []string{"PATH=" + t.TempDir(), "HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + cfgHome}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "opencode backend: cannot run /nonexistent/opencode-from-config") {
		t.Fatalf("err %v, stderr %q: want exit 1 and the opencode backend failing on the config's binary", err, errb.String())
	}
}
