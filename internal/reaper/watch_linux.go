package reaper

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/atomic-agent/atomic/internal/procstat"
)

// watchdog is this process's watchdog, started by the first Guard.
var watchdog struct {
	mu      sync.Mutex
	enabled bool     // Enable was called: this is the atomic binary
	mark    string   // this process's mark, "" until Adopt
	w       *os.File // this end of the watchdog's pipe; nil while none runs
	pid     int
}

// Enable lets Guard start the watchdog. Only the atomic binary calls it
// (from package reaper/supervisor): the watchdog is this binary
// re-executed, which a test binary is not.
func Enable() {
	watchdog.mu.Lock()
	watchdog.enabled = true
	watchdog.mu.Unlock()
}

// setMark gives this process its mark and puts it in the environment its
// children inherit, after the marks of any Atomic above it.
func setMark() {
	mark := strconv.Itoa(os.Getpid()) + "." + strconv.FormatInt(time.Now().UnixNano(), 36)
	v := mark
	if up := os.Getenv(EnvTree); up != "" {
		v = up + ":" + mark
	}
	_ = os.Setenv(EnvTree, v)
	watchdog.mu.Lock()
	watchdog.mark = mark
	watchdog.mu.Unlock()
}

// Guard prepares cmd, about to be started, to end with Atomic: it carries
// Atomic's mark in its environment, and the watchdog runs (it is started
// now if it is not running yet). Call it before cmd.Start, on a thread
// that is not sandboxed. With cmd nil it only starts the watchdog, for a
// child some library starts with this process's environment.
func Guard(cmd *exec.Cmd) {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	if watchdog.mark == "" {
		return // no Adopt: this process does not end its descendants
	}
	if cmd != nil && cmd.Env != nil {
		tree := EnvTree + "=" + os.Getenv(EnvTree)
		if !slices.Contains(cmd.Env, tree) {
			cmd.Env = append(cmd.Env, tree)
		}
	}
	if watchdog.w != nil || !watchdog.enabled || os.Getenv(EnvSingleProcess) == "1" {
		return
	}
	startWatchdog()
}

// startWatchdog re-executes this binary as the watchdog of this process.
// It holds the read end of a pipe as fd 3; this process keeps the write
// end, open until it exits. Called with watchdog.mu held.
func startWatchdog() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	defer r.Close()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), EnvWatch+"="+watchdog.mark)
	cmd.ExtraFiles = []*os.File{r}
	// A group of its own: a Ctrl-C at the terminal is for Atomic, not for
	// the watchdog, and a kill of Atomic's group leaves the watchdog.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return
	}
	watchdog.w, watchdog.pid = w, cmd.Process.Pid
	go func() {
		_ = cmd.Wait()
		// It ended before Atomic (somebody killed it): the next Guard
		// starts another.
		watchdog.mu.Lock()
		if watchdog.pid == cmd.Process.Pid {
			watchdog.w.Close()
			watchdog.w, watchdog.pid = nil, 0
		}
		watchdog.mu.Unlock()
	}()
}

// goodbye tells the watchdog that this process ended its descendants
// itself: the watchdog exits without looking for any.
func goodbye() {
	watchdog.mu.Lock()
	defer watchdog.mu.Unlock()
	if watchdog.w != nil {
		_, _ = watchdog.w.Write([]byte{'.'})
	}
}

// Watch is the watchdog: it waits for the Atomic process that marked its
// children with mark to end, reading pipe until EOF. If that process said
// goodbye first, it returns at once; otherwise (it was killed) it ends every
// process carrying mark and their descendants: SIGTERM, then SIGKILL after
// grace.
func Watch(pipe io.Reader, mark string, grace time.Duration) {
	b, _ := io.ReadAll(pipe)
	if len(b) > 0 {
		return
	}
	self := os.Getpid()
	killAll(func() []int { return markedTrees(mark, self) }, grace)
}

// markedTrees lists the running processes whose environment carries mark,
// with their descendants, but never skip (the watchdog itself).
func markedTrees(mark string, skip int) []int {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	running := map[int]bool{}
	var roots []int
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == skip {
			continue
		}
		state, ppid, err := procstat.Read(pid)
		if err != nil {
			continue
		}
		children[ppid] = append(children[ppid], pid)
		running[pid] = state != 'Z' && state != 'X'
		if env, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil && marked(env, mark) {
			roots = append(roots, pid)
		}
	}
	seen := map[int]bool{skip: true}
	var out []int
	queue := roots
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		if running[p] {
			out = append(out, p)
		}
		queue = append(queue, children[p]...)
	}
	return out
}

// killAll sends SIGTERM to every process list returns, waits up to grace
// for them to exit, then SIGKILLs what is left, repeating while processes
// fork faster than they are killed (bounded).
func killAll(list func() []int, grace time.Duration) {
	pids := list()
	if len(pids) == 0 {
		return
	}
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		if len(list()) == 0 {
			return
		}
	}
	for range 100 {
		pids = list()
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// RunWatchdog is the watchdog's whole life when this process is one (its
// environment has EnvWatch): it watches fd 3 and exits. Otherwise it
// returns.
func RunWatchdog() {
	mark := os.Getenv(EnvWatch)
	if mark == "" {
		return
	}
	// The terminal's signals are not for it: it ends with Atomic, never
	// before.
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP, syscall.SIGPIPE)
	Watch(os.NewFile(3, "watchdog pipe"), mark, leftoverGrace)
	os.Exit(0)
}

// leftoverGrace is how long the processes a killed Atomic left get between
// SIGTERM and SIGKILL.
const leftoverGrace = time.Second
