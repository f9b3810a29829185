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
		// The watchdog ends them: Atomic can do nothing.
		{"SIGKILL", signalWith(syscall.SIGKILL), -1, ""},
		// kill -9 of the job (a shell's process group): the watchdog is
		// in a group of its own.
		{"SIGKILL of its process group", func(t *testing.T, cmd *exec.Cmd, _ io.Closer) {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
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
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a job of its own, as a shell starts it
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

// TestAtomicIsOneProcessUntilItStartsAChildProcessThenItStartsItsWatchdog:
// --help and a one-answer run start no second process (Go's inittrace
// names each package a process initialises, on the shared stderr: the
// runtime once); a run whose lead calls bash starts the watchdog, in a
// process group of its own, which ends with Atomic.
func TestAtomicIsOneProcessUntilItStartsAChildProcessThenItStartsItsWatchdog(t *testing.T) {
	inits := func(t *testing.T, cmd *exec.Cmd) string {
		t.Helper()
		cmd.Env = append(cmd.Env, "GODEBUG=inittrace=1")
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%q: %v; stderr %s", cmd.Args, err, errb.String())
		}
		return errb.String()
	}
	count := func(trace, pkg string) int { return strings.Count(trace, "init "+pkg+" @") }
	const cli = "github.com/atomic-agent/atomic/internal/cli"

	home := t.TempDir()
	help := exec.Command(binary, "run", "--help")
	help.Dir = t.TempDir()
	help.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home}
	if tr := inits(t, help); count(tr, "runtime") != 1 || count(tr, cli) != 1 {
		t.Errorf("atomic run --help: runtime initialised %d times, the CLI %d; want one process", count(tr, "runtime"), count(tr, cli))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	answer := server(t, "rules: [{respond: {text: hi}}]")
	if tr := inits(t, command(t, ctx, answer, "anthropic", t.TempDir(), "-p", "hi")); count(tr, "runtime") != 1 {
		t.Errorf("a one-answer run: runtime initialised %d times; want one process", count(tr, "runtime"))
	}

	// The watchdog holds no stdio, so its inittrace is not seen: find it
	// while bash sleeps, a child of Atomic in a process group of its own.
	bash := server(t, `
rules:
  - {name: done, match: {has_tool_results: true}, respond: {text: "done"}}
  - {name: call, respond: {tool_calls: [{name: bash, input: {command: "sleep 0.5; echo slept"}}]}}
`)
	run := command(t, ctx, bash, "anthropic", t.TempDir(), "-p", "run it", "--permission-mode", "bypassPermissions")
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	watchdog := 0
	for deadline := time.Now().Add(20 * time.Second); watchdog == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		watchdog = watchdogOf(run.Process.Pid)
	}
	if err := run.Wait(); err != nil {
		t.Fatalf("a run calling bash: %v", err)
	}
	if watchdog == 0 {
		t.Fatal("a run calling bash: Atomic started no watchdog")
	}
	if pgid, _ := syscall.Getpgid(watchdog); pgid != watchdog && alive(watchdog) {
		t.Errorf("the watchdog is in process group %d; want one of its own", pgid)
	}
	for deadline := time.Now().Add(5 * time.Second); alive(watchdog); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watchdog outlived the Atomic it watched")
		}
	}
}

// watchdogOf is the pid of parent's watchdog: its child with
// ATOMIC_REAPER_WATCH in its environment; 0 if it has none.
func watchdogOf(parent int) int {
	dir, _ := os.ReadDir("/proc")
	for _, e := range dir {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(parent) {
			continue
		}
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if strings.Contains(string(env), "\x00ATOMIC_REAPER_WATCH=") {
			pid, _ := strconv.Atoi(e.Name())
			return pid
		}
	}
	return 0
}
