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
)

// Runs and checks shared by the external-CLI backends' end-to-end tests:
// the same behaviour, whichever CLI runs the lead.

// cliRun is one `atomic run --backend <cli>` with its own home, which
// marks every process it starts (they inherit HOME).
type cliRun struct {
	cmd       *exec.Cmd
	home, dir string
}

// cliCommand builds `atomic run --backend name` against baseURL (the
// loopback's /v1) in a fresh workspace with a throwaway home.
func cliCommand(t *testing.T, ctx context.Context, name, baseURL, bin string, args ...string) cliRun {
	t.Helper()
	home := t.TempDir()
	full := append([]string{"run", "--backend", name, "--backend-bin", bin, "--base-url", baseURL, "--model", "gpt-test"}, args...)
	cmd := exec.CommandContext(ctx, binary, full...)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local/share"), "XDG_STATE_HOME=" + filepath.Join(home, ".local/state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "TMPDIR=" + home, "OPENAI_API_KEY=test-key", "NO_COLOR=1", "LANG=C.UTF-8"}
	return cliRun{cmd: cmd, home: home, dir: cmd.Dir}
}

// runCLI runs `atomic run --backend name` to its end.
func runCLI(t *testing.T, name, baseURL, bin string, args ...string) (result, cliRun) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	run := cliCommand(t, ctx, name, baseURL, bin, args...)
	return runCmd(t, run.cmd), run
}

// checkHeadlessDenial checks a finished CAP-PERM run: one approval, asked
// as the sub-agent, denied with a reason naming flag; the command never
// ran in dir; the stream ends with complete.
func checkHeadlessDenial(t *testing.T, r result, dir, flag string) {
	t.Helper()
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
	if d.Allowed || !strings.Contains(d.Reason, flag) {
		t.Errorf("permission %+v: want denied with a reason naming %s", d, flag)
	}
	if denied[0].AgentID == "" || denied[0].AgentID == "lead" || denied[0].ParentAgentID != "lead" {
		t.Errorf("the approval is asked as %q (parent %q), want the sub-agent", denied[0].AgentID, denied[0].ParentAgentID)
	}
	if _, err := os.Stat(filepath.Join(dir, "perm.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("perm.txt: %v, want the denied command never run", err)
	}
	if last := evs[len(evs)-1]; last.Type != event.Complete {
		t.Errorf("last event %s, want complete", last.Type)
	}
	t.Logf("denied: %s (run took %v)", d.Reason, r.elapsed)
}

// checkMissingCLI checks that cmd, whose --backend-bin names the missing
// binary missing, exits 1 with one line naming it, and that --backend name
// with the CLI not on PATH exits 1 with one line naming its npm package.
func checkMissingCLI(t *testing.T, ctx context.Context, cmd *exec.Cmd, name, missing, pkg string) {
	t.Helper()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 || !strings.Contains(errb.String(), missing) {
		t.Fatalf("err %v, stderr %q: want exit 1 and one line naming the missing binary", err, errb.String())
	}
	cmd = exec.CommandContext(ctx, binary, "run", "--backend", name, "-p", "hi")
	cmd.Dir, cmd.Env = t.TempDir(), []string{"PATH=" + t.TempDir(), "HOME=" + t.TempDir()}
	errb.Reset()
	cmd.Stderr = &errb
	err = cmd.Run()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(errb.String(), pkg) || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
		t.Fatalf("err %v, stderr %q: want exit 1 and one line naming %s", err, errb.String(), pkg)
	}
}

// checkSIGINT starts cmd (a stream-json run), sends SIGINT while the
// request rule answers is in flight, and checks: exit 130 with the one
// line, every agent interrupted, an error complete last, and none of the
// CLI's processes (procs) left. It returns how long the exit took.
func checkSIGINT(t *testing.T, cmd *exec.Cmd, srv *loopback.Server, rule string, procs func() []string) time.Duration {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !ruleInFlight(srv, rule) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the %s request never came; stderr %q", rule, errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := procs()
	if len(before) == 0 {
		t.Fatal("no CLI process found while the run works: the process check would prove nothing")
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
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
	completes := 0
	for _, e := range evs {
		if e.Type == event.Complete {
			completes++
		}
	}
	last := evs[len(evs)-1]
	if completes != 1 || last.Type != event.Complete || !data[event.CompleteData](t, last).IsError {
		t.Fatalf("%d complete events, last event %s: want one error complete, last", completes, last.Type)
	}
	var left []string
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if left = procs(); len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	if len(left) > 0 {
		t.Fatalf("CLI processes outlived atomic: %q (before the interrupt: %q)", left, before)
	}
	t.Logf("SIGINT to exit: %v; %d CLI processes before, none after", took, len(before))
	return took
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
