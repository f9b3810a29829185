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

// interruptSlowRun starts run (stream-json), SIGINTs it while the slow
// sub-agent's model request (rule sub-SLOW) is in flight, and checks what
// every backend owes an interrupt: exit 130 with one line on stderr, every
// agent interrupted, one error complete last, and none of the CLI's
// processes (procs) left. It returns the time from SIGINT to exit and how
// many processes there were before.
func interruptSlowRun(t *testing.T, srv *loopback.Server, run codexRun, procs func() []string) (time.Duration, int) {
	t.Helper()
	var out, errb bytes.Buffer
	run.cmd.Stdout, run.cmd.Stderr = &out, &errb
	if err := run.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !slowInFlight(srv) {
		if time.Now().After(deadline) {
			run.cmd.Process.Kill()
			run.cmd.Wait()
			t.Fatalf("the slow sub-agent's request never came; stderr %q", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := procs()
	if len(before) == 0 {
		run.cmd.Process.Kill()
		run.cmd.Wait()
		t.Fatal("no CLI process found while the run works: the process check would prove nothing")
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
	return took, len(before)
}

// missingCLI checks `atomic run --backend name` without its CLI: run names
// a --backend-bin that does not exist, and the line on stderr names it;
// with nothing on PATH either, the line names the npm package pkg. Both
// exit 1 with one line.
func missingCLI(t *testing.T, run codexRun, name, bin, pkg string) {
	t.Helper()
	var errb bytes.Buffer
	run.cmd.Stderr = &errb
	err := run.cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 || !strings.Contains(errb.String(), bin) {
		t.Fatalf("err %v, stderr %q: want exit 1 and one line naming the missing binary", err, errb.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "run", "--backend", name, "-p", "hi")
	cmd.Dir, cmd.Env = t.TempDir(), []string{"PATH=" + t.TempDir(), "HOME=" + t.TempDir()}
	errb.Reset()
	cmd.Stderr = &errb
	err = cmd.Run()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(errb.String(), pkg) || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
		t.Fatalf("err %v, stderr %q: want exit 1 and one line naming %s", err, errb.String(), pkg)
	}
}

// deniedHeadless checks the one approval of a run: a sub-agent's (its own
// id, the lead its parent) `touch perm.txt`, denied headless with a reason
// naming the flag that would allow it, and never run in dir. It returns
// the reason.
func deniedHeadless(t *testing.T, evs []event.Raw, dir string) string {
	t.Helper()
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
	if d.Allowed || !strings.Contains(d.Reason, "--permission-mode bypassPermissions") {
		t.Errorf("permission %+v: want denied with a reason naming the flag that would allow it", d)
	}
	if denied[0].AgentID == "" || denied[0].AgentID == "lead" || denied[0].ParentAgentID != "lead" {
		t.Errorf("the approval is asked as %q (parent %q), want the sub-agent", denied[0].AgentID, denied[0].ParentAgentID)
	}
	if _, err := os.Stat(filepath.Join(dir, "perm.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("perm.txt: %v, want the denied command never run", err)
	}
	return d.Reason
}
