package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// opencodeRun is one `atomic run --backend opencode` with its own home,
// which marks every process it starts (they inherit HOME).
type opencodeRun struct {
	cmd       *exec.Cmd
	home, dir string
}

// opencodeCommand builds `atomic run --backend opencode` against baseURL
// (the loopback's /v1, spoken as OpenAI Chat Completions by OpenCode's
// OpenAI-compatible provider) in a fresh workspace with a throwaway home.
func opencodeCommand(t *testing.T, ctx context.Context, baseURL, bin string, args ...string) opencodeRun {
	t.Helper()
	home := t.TempDir()
	full := append([]string{"run", "--backend", "opencode", "--backend-bin", bin, "--base-url", baseURL, "--model", "gpt-test"}, args...)
	cmd := exec.CommandContext(ctx, binary, full...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local/share"), "XDG_STATE_HOME=" + filepath.Join(home, ".local/state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "TMPDIR=" + home, "OPENAI_API_KEY=test-key", "NO_COLOR=1", "LANG=C.UTF-8"}
	return opencodeRun{cmd: cmd, home: home, dir: cmd.Dir}
}

// runOpenCode runs `atomic run --backend opencode` to its end.
func runOpenCode(t *testing.T, baseURL, bin string, args ...string) (result, opencodeRun) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	run := opencodeCommand(t, ctx, baseURL, bin, args...)
	return runCmd(t, run.cmd), run
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
	var out, errb bytes.Buffer
	run.cmd.Stdout, run.cmd.Stderr = &out, &errb
	if err := run.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !ruleInFlight(srv, "sub-SLOW") {
		if time.Now().After(deadline) {
			run.cmd.Process.Kill()
			run.cmd.Wait()
			t.Fatalf("the slow sub-agent's request never came; stderr %q", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := opencodeProcesses(bin, run.home)
	if len(before) == 0 {
		t.Fatal("no opencode process found while the run works: the process check would prove nothing")
	}
	start := time.Now()
	run.cmd.Process.Signal(syscall.SIGINT)
	err := run.cmd.Wait()
	took := time.Since(start)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130; stderr %q", err, errb.String())
	}
	if got := strings.TrimSpace(errb.String()); got != "atomic: interrupted (SIGINT)" {
		t.Errorf("stderr %q, want the one line atomic: interrupted (SIGINT)", got)
	}
	evs := events(t, out.String())
	seqs := statusesByAgent(t, evs)
	if len(seqs) != 1 {
		t.Fatalf("agents %v, want the one sub-agent", seqs)
	}
	for id, seq := range seqs {
		if seq[len(seq)-1] != lifecycle.Interrupted {
			t.Errorf("agent %s ended %v, want interrupted", id, seq)
		}
	}
	if last := evs[len(evs)-1]; last.Type != event.Complete || !data[event.CompleteData](t, last).IsError {
		t.Fatalf("last event %s, want an error complete", last.Type)
	}
	var left []string
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if left = opencodeProcesses(bin, run.home); len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	if len(left) > 0 {
		t.Fatalf("opencode processes outlived atomic: %q (before the interrupt: %q)", left, before)
	}
	t.Logf("SIGINT to exit: %v; %d opencode processes before, none after", took, len(before))
}

// ruleInFlight reports whether a request answered by rule is under way.
func ruleInFlight(srv *loopback.Server, rule string) bool {
	for _, e := range loopback.ByRule(srv.Log(), rule) {
		if !e.Done() {
			return true
		}
	}
	return false
}

func TestBackendOpenCodeSubagentCommandNeedingApprovalIsDeniedHeadlessNamingTheFlag(t *testing.T) {
	bin := testkit.OpenCodeCLI(t)
	srv := server(t, testkit.OpenCodePerm)
	r, run := runOpenCode(t, srv.URL()+"/v1", bin, "-p", "CAP-PERM: have a sub-agent write a file.", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	var denied []event.Raw
	for _, e := range evs {
		if e.Type == event.PermissionResolved {
			denied = append(denied, e)
		}
	}
	if len(denied) != 1 {
		t.Fatalf("%d permission.resolved events, want 1", len(denied))
	}
	d := data[event.PermissionResolvedData](t, denied[0])
	if d.Allowed || !strings.Contains(d.Reason, "--allowed-tools") {
		t.Errorf("permission %+v: want denied with a reason naming the flag that would allow it", d)
	}
	if denied[0].AgentID == "" || denied[0].AgentID == "lead" || denied[0].ParentAgentID != "lead" {
		t.Errorf("the approval is asked as %q (parent %q), want the sub-agent", denied[0].AgentID, denied[0].ParentAgentID)
	}
	if _, err := os.Stat(filepath.Join(run.dir, "perm.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("perm.txt: %v, want the denied command never run", err)
	}
	if last := evs[len(evs)-1]; last.Type != event.Complete {
		t.Errorf("last event %s, want complete", last.Type)
	}
	t.Logf("denied: %s (run took %v)", d.Reason, r.elapsed)
}

func TestBackendOpenCodeMissingCLISaysWhatToInstallAndExits1(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run := opencodeCommand(t, ctx, "http://127.0.0.1:9/v1", "/nonexistent/opencode", "-p", "hi")
	var errb bytes.Buffer
	run.cmd.Stderr = &errb
	err := run.cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 || !strings.Contains(errb.String(), "/nonexistent/opencode") {
		t.Fatalf("err %v, stderr %q: want exit 1 and one line naming the missing binary", err, errb.String())
	}
	// Not on PATH either: the line names the npm package to install.
	cmd := exec.CommandContext(ctx, binary, "run", "--backend", "opencode", "-p", "hi")
	cmd.Dir, cmd.Env = t.TempDir(), []string{"PATH=" + t.TempDir(), "HOME=" + t.TempDir()}
	errb.Reset()
	cmd.Stderr = &errb
	err = cmd.Run()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "opencode-ai") || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
		t.Fatalf("err %v, stderr %q: want exit 1 and one line naming opencode-ai", err, errb.String())
	}
	// The config file's backend: opencode selects it the same way.
	cfgHome := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfgHome, "atomic"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := `{"backend": "opencode", "backend_bin": "/nonexistent/opencode-from-config"}`
	if err := os.WriteFile(filepath.Join(cfgHome, "atomic", "config.json"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd = exec.CommandContext(ctx, binary, "run", "-p", "hi")
	cmd.Dir, cmd.Env = t.TempDir(), []string{"PATH=" + t.TempDir(), "HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + cfgHome}
	errb.Reset()
	cmd.Stderr = &errb
	err = cmd.Run()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "opencode: start /nonexistent/opencode-from-config") {
		t.Fatalf("err %v, stderr %q: want exit 1 and the opencode backend failing on the config's binary", err, errb.String())
	}
}
