// The CLI's processes are found through /proc, which only Linux has;
// proc_other.go says what other systems do without it.

package copilot

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/atomic-agent/atomic/internal/procstat"
)

// markEnv names the variable that marks every process of one session: the
// SDK starts the CLI without a process group of its own and kills only
// that process, so the CLI's children (its shell tools, its native
// runtime) are found by the mark they inherit and ended with it.
const markEnv = "ATOMIC_COPILOT_SESSION"

// marked lists the processes whose environment carries mark (only this
// user's processes are readable, which are the only ones Atomic starts).
func marked(mark string) []int {
	want := []byte(markEnv + "=" + mark + "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err == nil && bytes.Contains(env, want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// cliPid finds the CLI process the SDK started: this process's child
// carrying mark. It waits up to a second for it to appear.
func cliPid(mark string) int {
	for range 20 {
		for _, pid := range marked(mark) {
			if procstat.Parent(pid) == os.Getpid() {
				return pid
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return 0
}

// killMarked ends every process carrying mark: SIGKILL, repeated until
// none is left or the bound passes (a process forking meanwhile). It
// reports the ones still there.
func killMarked(mark string, bound time.Duration) []int {
	deadline := time.Now().Add(bound)
	for {
		pids := marked(mark)
		alive := pids[:0]
		for _, pid := range pids {
			if !zombie(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		for _, pid := range alive {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// zombie reports a process that has ended but is not reaped yet (its
// parent, or the subreaper, reaps it).
func zombie(pid int) bool {
	state, _, err := procstat.Read(pid)
	return err != nil || state == 'Z' || state == 'X' // gone, or ended
}

// cliGone reports that the CLI process pid is gone, or was never found
// (pid 0).
func cliGone(pid int) bool { return pid == 0 || syscall.Kill(pid, 0) != nil }
