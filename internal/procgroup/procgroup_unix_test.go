//go:build unix

package procgroup

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// startGroup starts `bash -c 'sleep 100 & echo $!; wait'` with attr and
// returns it with the pid of its background sleep, the test's grandchild.
// Both are killed by pid when the test ends, whatever it found.
func startGroup(t *testing.T, attr func() *syscall.SysProcAttr) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", "sleep 100 & echo $!; wait")
	cmd.SysProcAttr = attr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting bash: %v", err)
	}
	var sleep int
	t.Cleanup(func() {
		if sleep > 0 && !ended(sleep) {
			_ = syscall.Kill(sleep, syscall.SIGKILL)
		}
		_ = cmd.Process.Kill() // a no-op once the test has reaped it
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the sleep's pid: %v", err)
	}
	if sleep, err = strconv.Atoi(strings.TrimSpace(line)); err != nil {
		t.Fatalf("sleep's pid %q: %v", line, err)
	}
	return cmd, sleep
}

// attrs are the ways to start a command in a group of its own.
var attrs = []struct {
	name string
	attr func() *syscall.SysProcAttr
}{{"Attr", Attr}, {"SessionAttr", SessionAttr}}

func TestAttrPutsTheCommandAndItsChildrenInAGroupOfTheirOwn(t *testing.T) {
	for _, a := range attrs {
		t.Run(a.name, func(t *testing.T) {
			cmd, sleep := startGroup(t, a.attr)
			for _, pid := range []int{cmd.Process.Pid, sleep} {
				pgid, err := syscall.Getpgid(pid)
				if err != nil {
					t.Fatalf("getpgid(%d): %v", pid, err)
				}
				if pgid != cmd.Process.Pid {
					t.Errorf("process %d is in group %d, want %d (the command's own)", pid, pgid, cmd.Process.Pid)
				}
			}
			if own, _ := syscall.Getpgid(0); own == cmd.Process.Pid {
				t.Errorf("the test itself is in the command's group %d", own)
			}
		})
	}
}

func TestSessionAttrStartsTheCommandInASessionOfItsOwn(t *testing.T) {
	cmd, sleep := startGroup(t, SessionAttr)
	for _, pid := range []int{cmd.Process.Pid, sleep} {
		sid, err := unix.Getsid(pid)
		if err != nil {
			t.Fatalf("getsid(%d): %v", pid, err)
		}
		if sid != cmd.Process.Pid {
			t.Errorf("process %d is in session %d, want %d (the command's own)", pid, sid, cmd.Process.Pid)
		}
	}
}

func TestSignalReachesTheGrandchildOfACommandStartedWithAttr(t *testing.T) {
	tests := []struct {
		name string
		sig  syscall.Signal
	}{
		{"SIGTERM", syscall.SIGTERM},
		{"SIGKILL", syscall.SIGKILL},
	}
	for _, tt := range tests {
		for _, a := range attrs {
			t.Run(a.name+" "+tt.name, func(t *testing.T) {
				cmd, sleep := startGroup(t, a.attr)
				pgid := cmd.Process.Pid
				if err := Signal(pgid, 0); err != nil {
					t.Fatalf("Signal(%d, 0) on a live group: %v", pgid, err)
				}
				if err := Signal(pgid, tt.sig); err != nil {
					t.Fatalf("Signal(%d, %v): %v", pgid, tt.sig, err)
				}
				err := cmd.Wait()
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != tt.sig {
					t.Errorf("bash ended with %v, want killed by %v", err, tt.sig)
				}
				deadline := time.Now().Add(5 * time.Second)
				for !ended(sleep) && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				if !ended(sleep) {
					t.Errorf("the grandchild sleep %d survived %v to group %d", sleep, tt.sig, pgid)
				}
			})
		}
	}
}

// ended reports that pid no longer runs: it is gone, or (where /proc
// tells) a zombie waiting for init, which reparented it, to reap it.
func ended(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

func TestSignalOnAGroupWithNoProcessLeftReportsESRCH(t *testing.T) {
	cmd := exec.Command("true")
	cmd.SysProcAttr = Attr()
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if err := Signal(cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("Signal on the ended group %d: %v, want ESRCH", cmd.Process.Pid, err)
	}
}
