package reaper

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/procstat"
)

// startMarked starts, with mark in its environment (or none when mark is
// ""), a shell in a session of its own that leaves a background sleep, a
// setsid one and a double-forked one, and exits: the sleeps are orphans,
// adopted by this test process (a subreaper after Adopt) or by init.
// It returns their pids.
func startMarked(t *testing.T, mark string) []int {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command("/bin/sh", "-c", `sleep 300 & echo $! >> "$1"; setsid sleep 300 & echo $! >> "$1"; (sleep 300 & echo $! >> "$1")`, "sh", pidFile)
	cmd.Env = os.Environ()
	if mark != "" {
		cmd.Env = append(cmd.Env, EnvTree+"=elsewhere:"+mark)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(pidFile)
	var pids []int
	for _, s := range strings.Fields(string(b)) {
		p, _ := strconv.Atoi(s)
		pids = append(pids, p)
	}
	if len(pids) != 3 {
		t.Fatalf("the shell wrote pids %q", b)
	}
	t.Cleanup(func() {
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
		reapAll(0)
	})
	return pids
}

func running(pid int) bool {
	state, _, err := procstat.Read(pid)
	return err == nil && state != 'Z' && state != 'X'
}

// watchUntil runs Watch on a pipe whose writer says goodbye first when
// bye, then closes as a killed Atomic's does.
func watchUntil(t *testing.T, mark string, bye bool) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if bye {
		w.Write([]byte{'.'})
	}
	w.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		Watch(r, mark, time.Second)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not return")
	}
	time.Sleep(20 * time.Millisecond)
	reapAll(0) // the orphans this subreaper adopted, so their end shows
}

func TestWatchdogOfAKilledAtomicEndsEveryProcessCarryingItsMarkAndNoOther(t *testing.T) {
	tree := Adopt()
	defer tree.Close(time.Second)
	ours := startMarked(t, "run-1")
	theirs := startMarked(t, "run-2")
	unmarked := startMarked(t, "")
	watchUntil(t, "run-1", false)
	for _, p := range ours {
		if running(p) {
			t.Errorf("marked sleep %d outlived the killed Atomic's watchdog", p)
		}
	}
	for _, p := range append(theirs, unmarked...) {
		if !running(p) {
			t.Errorf("sleep %d, not marked run-1, was ended", p)
		}
	}
}

func TestWatchdogOfAnAtomicThatSaidGoodbyeEndsNothing(t *testing.T) {
	tree := Adopt()
	defer tree.Close(time.Second)
	ours := startMarked(t, "run-3")
	watchUntil(t, "run-3", true)
	for _, p := range ours {
		if !running(p) {
			t.Errorf("sleep %d was ended after Atomic said goodbye", p)
		}
	}
}

func TestGuardMarksTheCommandsEnvironmentWithThisProcesssMarks(t *testing.T) {
	t.Setenv(EnvTree, "outer")
	tree := Adopt()
	defer tree.Close(time.Second)
	cmd := exec.Command("/bin/true")
	cmd.Env = []string{"PATH=/bin"}
	Guard(cmd)
	want := EnvTree + "=outer:" + watchdog.mark
	if len(cmd.Env) != 2 || cmd.Env[1] != want {
		t.Fatalf("env %q; want PATH and %q", cmd.Env, want)
	}
	Guard(cmd)
	if len(cmd.Env) != 2 {
		t.Fatalf("a second Guard marked it again: %q", cmd.Env)
	}
	if watchdog.w != nil {
		t.Fatal("a test binary started a watchdog: only the atomic binary may")
	}
}

func BenchmarkGuard(b *testing.B) {
	tree := Adopt()
	defer tree.Close(time.Second)
	env := os.Environ()
	for b.Loop() {
		cmd := exec.Command("/bin/true")
		cmd.Env = append([]string(nil), env...)
		Guard(cmd)
	}
}

func BenchmarkMarkedTrees(b *testing.B) {
	for b.Loop() {
		markedTrees("no-such-mark", os.Getpid())
	}
}
