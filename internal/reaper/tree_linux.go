package reaper

import (
	"errors"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/atomic-agent/atomic/internal/procstat"
)

const supported = true

// Tree is this process and everything it started, including the orphans
// it adopts as a child subreaper.
type Tree struct {
	pid    int
	stop   chan struct{}
	reaped chan struct{}
}

// Adopt makes this process a child subreaper, so descendants that lose
// their parent are re-parented here rather than to init and stay within
// reach of Close. Without the prctl (an old kernel) Close still ends the
// descendants that kept their parents.
//
// Adopted orphans that exit are reaped as they go, so they do not pile up
// as zombies. A zombie child is only reaped when no pidfd of this process
// refers to it: os.StartProcess holds a pidfd for each child it starts
// until Wait, so children somebody will wait for are left alone. On a
// kernel without pidfds (before 5.3), nothing is reaped until exit.
func Adopt() *Tree {
	setMark()
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	t := &Tree{pid: os.Getpid(), stop: make(chan struct{}), reaped: make(chan struct{})}
	fd, err := unix.PidfdOpen(t.pid, 0)
	if err != nil {
		close(t.reaped)
		return t
	}
	unix.Close(fd)
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	go func() {
		defer close(t.reaped)
		defer signal.Stop(chld)
		reapLoop(t.pid, chld, t.stop, zombieChildren, scanEvery)
	}()
	return t
}

// scanEvery is the least time between two looks at which zombie children
// are this process's own (its pidfds) and which are orphans: each reads
// /proc for every open file and child. A burst of children exiting (a
// hundred background shells) would otherwise pay one look each; an
// orphan's zombie waits at most this long, holding only its pid.
const scanEvery = 50 * time.Millisecond

// reapLoop reaps orphans on SIGCHLD until stop: at once when the last look
// is every ago, else once that interval ends. A SIGCHLD that finds no
// zombie (the child's own Wait collected it) costs one system call.
func reapLoop(self int, chld <-chan os.Signal, stop <-chan struct{}, list func(parent int) []int, every time.Duration) {
	var last time.Time
	var due <-chan time.Time // a look put off until the interval ends
	for {
		select {
		case <-chld:
			if _, zombie := peekChild(); zombie == 0 || due != nil {
				continue
			}
			if wait := every - time.Since(last); wait > 0 {
				due = time.After(wait)
				continue
			}
		case <-due:
			due = nil
		case <-stop:
			return
		}
		reapOrphans(self, list)
		last = time.Now()
	}
}

// Close stops reaping and ends every descendant: SIGTERM, then SIGKILL
// for those still running after grace. It then tells the watchdog, if one
// runs, that nothing is left for it to end.
func (t *Tree) Close(grace time.Duration) {
	close(t.stop)
	<-t.reaped
	killDescendants(t.pid, grace, descendants)
	goodbye()
}

// reapOrphans reaps the zombie children of self (its pid) that no pidfd of
// this process refers to. It asks the kernel first, so a SIGCHLD with
// nothing left to reap (a child of ours that Wait already collected) costs
// one system call, not a read of every process in /proc; list (zombieChildren)
// is read only when a zombie somebody will wait for hides the others.
//
// Which pids are ours is read after the zombies are seen, never before: a
// child started meanwhile has its pidfd from birth (clone3) until its
// Wait is done, so it is then known, however briefly it lived.
func reapOrphans(self int, list func(parent int) []int) {
	for {
		_, pid := peekChild()
		if pid == 0 {
			return
		}
		if pidfdTargets()[pid] {
			break
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
	zombies := list(self)
	owned := pidfdTargets()
	for _, pid := range zombies {
		if owned[pid] {
			continue
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

// pidfdTargets are the pids this process holds pidfds for, read from
// /proc/self/fdinfo ("Pid:" lines).
func pidfdTargets() map[int]bool {
	out := map[int]bool{}
	fds, err := os.ReadDir("/proc/self/fdinfo")
	if err != nil {
		return nil
	}
	for _, fd := range fds {
		b, err := os.ReadFile("/proc/self/fdinfo/" + fd.Name())
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Pid:"); ok {
				if pid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					out[pid] = true
				}
			}
		}
	}
	return out
}

// zombieChildren lists the children of parent that have exited and wait
// to be reaped.
func zombieChildren(parent int) []int {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, ppid, err := procstat.Read(pid); err == nil && ppid == parent && state == 'Z' {
			out = append(out, pid)
		}
	}
	return out
}

// killDescendants sends SIGTERM to every running descendant of root (this
// process), waits up to grace for them to exit, then SIGKILLs what is
// left, repeating while processes fork faster than they are killed
// (bounded). list (descendants) reads all of /proc, which takes
// milliseconds on a busy machine, at every exit of Atomic: it is skipped
// when this process has no child at all, since every descendant is a
// child's descendant, or (an orphan, adopted as subreaper) a child itself.
func killDescendants(root int, grace time.Duration, list func(root int) []int) {
	if any, _ := peekChild(); !any {
		return
	}
	killAll(func() []int { return list(root) }, grace)
}

// siginfo is the kernel's siginfo_t for SIGCHLD: the union after the
// three ints is pointer-aligned, and the whole is 128 bytes (the tail
// leaves room to spare).
type siginfo struct {
	signo, errno, code int32
	_                  [unsafe.Sizeof(uintptr(0)) - 4]byte
	pid, uid, status   int32
	_                  [128]byte
}

// peekChild reports whether this process has any child process, and the
// pid of one that has exited and waits to be reaped (0 if none), without
// reaping it (waitid with WNOWAIT).
func peekChild() (any bool, zombie int) {
	for {
		var info siginfo
		_, _, errno := syscall.Syscall6(unix.SYS_WAITID, unix.P_ALL, 0, uintptr(unsafe.Pointer(&info)),
			unix.WEXITED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, 0, 0)
		switch errno {
		case 0:
			return true, int(info.pid)
		case syscall.EINTR:
			continue
		case syscall.ECHILD:
			return false, 0
		}
		return true, 0 // cannot tell: take the long way
	}
}

// descendants lists the running (not zombie) descendants of root, read
// from /proc.
func descendants(root int) []int {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	running := map[int]bool{}
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, ppid, err := procstat.Read(pid)
		if err != nil {
			continue // exited meanwhile
		}
		children[ppid] = append(children[ppid], pid)
		running[pid] = state != 'Z' && state != 'X'
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if running[c] {
				out = append(out, c)
			}
			queue = append(queue, c)
		}
	}
	return out
}

// reapAll collects every exited child without blocking, and reports the
// status of child watch if it was among them.
func reapAll(watch int) (status syscall.WaitStatus, found bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return status, found
		}
		if pid == watch {
			status, found = ws, true
		}
	}
}
