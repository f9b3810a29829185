//go:build unix

package e2e

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sleepersScenario has the lead say something, then run a bash command
// that leaves two sleeps behind, one of them in a session of its own
// (beyond the bash tool's process-group kill), and then blocks.
const sleepersScenario = `
rules:
  - name: sleepers
    match: {has_tool_results: false}
    respond:
      text: "Starting the sleepers."
      tool_calls:
        - {name: bash, input: {command: "sleep 300 & echo $! >> pids; setsid sleep 300 & echo $! >> pids; sleep 301"}}
  - name: after
    match: {has_tool_results: true}
    respond: {text: "never"}
`

// TestNoChildOutlivesAtomicHoweverItEnds ends atomic in each way a user or
// the system can, while a bash call has left a plain background sleep and a
// setsid one: neither may be alive afterwards. Catchable signals report
// themselves once on stderr with the shell's exit status for that signal.
func TestNoChildOutlivesAtomicHoweverItEnds(t *testing.T) {
	cases := []struct {
		name string
		end  func(t *testing.T, cmd *exec.Cmd, stdout io.Closer)
		// code is the wanted exit status; -1: killed by SIGKILL.
		code int
		// says is the one line wanted on stderr ("" for SIGKILL).
		says string
	}{
		{"SIGINT", signalWith(syscall.SIGINT), 130, "atomic: interrupted (SIGINT)"},
		{"SIGTERM", signalWith(syscall.SIGTERM), 143, "atomic: interrupted (SIGTERM)"},
		{"SIGHUP", signalWith(syscall.SIGHUP), 129, "atomic: interrupted (SIGHUP)"},
		{"SIGKILL", signalWith(syscall.SIGKILL), -1, ""},
		// The OOM killer picks the biggest process: the inner one.
		{"SIGKILL of the inner process", func(t *testing.T, cmd *exec.Cmd, _ io.Closer) {
			syscall.Kill(innerPID(t, cmd.Process.Pid), syscall.SIGKILL)
		}, -1, ""},
		{"stdout closed", func(_ *testing.T, _ *exec.Cmd, stdout io.Closer) { stdout.Close() }, 141, "atomic: interrupted (stdout closed)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := server(t, sleepersScenario)
			ws := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := command(t, ctx, srv, "anthropic", ws, "-p", "run it", "--permission-mode", "bypassPermissions")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var errb strings.Builder
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pids := waitForPIDs(t, filepath.Join(ws, "pids"), 2)
			for _, p := range pids {
				if !alive(p) {
					t.Fatalf("sleep %d should be running before atomic ends", p)
				}
			}
			outc := make(chan string, 1)
			if tc.name != "stdout closed" {
				go func() {
					b, _ := io.ReadAll(stdout)
					outc <- string(b)
				}()
			} else {
				outc <- ""
			}
			start := time.Now()
			tc.end(t, cmd, stdout)
			err = cmd.Wait()
			out := <-outc
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("atomic took %s to end", d)
			}
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit status %d, want %d; stderr %q", code, tc.code, errb.String())
			}
			if got := strings.TrimSpace(errb.String()); got != tc.says && tc.code != -1 {
				t.Errorf("stderr %q, want exactly %q", got, tc.says)
			}
			if tc.code == 130 || tc.code == 143 || tc.code == 129 {
				if strings.TrimSpace(out) != "Starting the sleepers." {
					t.Errorf("an interrupted text run prints what the lead said; stdout %q", out)
				}
			}
			deadline := time.Now().Add(5 * time.Second)
			for _, p := range pids {
				for alive(p) {
					if time.Now().After(deadline) {
						t.Fatalf("sleep %d outlived atomic (%s)", p, tc.name)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}

func signalWith(sig syscall.Signal) func(*testing.T, *exec.Cmd, io.Closer) {
	return func(_ *testing.T, cmd *exec.Cmd, _ io.Closer) { cmd.Process.Signal(sig) }
}

// innerPID is the pid of the process outer re-executed (its child running
// the same binary).
func innerPID(t *testing.T, outer int) int {
	t.Helper()
	dir, _ := os.ReadDir("/proc")
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+1:]))
		exe, _ := os.Readlink("/proc/" + e.Name() + "/exe")
		if len(f) > 1 && f[1] == strconv.Itoa(outer) && exe == binary {
			return pid
		}
	}
	t.Fatalf("atomic (pid %d) has no inner process", outer)
	return 0
}

// waitForPIDs reads n process ids from the file path once they are there.
func waitForPIDs(t *testing.T, path string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(path)
		if f := strings.Fields(string(b)); len(f) >= n {
			var pids []int
			for _, s := range f[:n] {
				p, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("pid file %q: %v", b, err)
				}
				pids = append(pids, p)
			}
			return pids
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the bash command never wrote its pids")
	return nil
}

// alive reports whether pid is a running process: gone and zombie
// (exited, not yet reaped) processes are dead.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	state := b[i+2]
	return state != 'Z' && state != 'X'
}

// TestSupervisorStartsTheInnerProcessBeforeInitialisingAtomic: the outer
// process only supervises, so it starts the inner one before Atomic's
// packages (the providers' SDKs, the UI, the CLI) are initialised, and
// never initialises them at all; the inner process, which runs the agents,
// initialises them once. Go's inittrace names each package initialised,
// by either process, on the shared stderr.
func TestSupervisorStartsTheInnerProcessBeforeInitialisingAtomic(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(binary, "run", "--help")
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "GODEBUG=inittrace=1"}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("atomic run --help: %v; stderr %s", err, errb.String())
	}
	for _, pkg := range []string{"github.com/atomic-agent/atomic/internal/cli", "github.com/anthropics/anthropic-sdk-go", "github.com/openai/openai-go/v3"} {
		if n := strings.Count(errb.String(), "init "+pkg+" @"); n != 1 {
			t.Errorf("%s initialised %d times, want once (by the inner process only)", pkg, n)
		}
	}
}
