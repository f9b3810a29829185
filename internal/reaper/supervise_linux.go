package reaper

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// forwarded are the signals the supervisor passes on to the inner process.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// leftoverGrace is how long orphans the inner process left get between
// SIGTERM and SIGKILL.
const leftoverGrace = time.Second

// Supervise re-executes this binary with args as the inner process and
// supervises it until it exits: signals are forwarded, orphans adopted on
// the way are reaped, and whatever is left when the inner process ends is
// killed. It returns the inner process's exit status, or re-raises the
// signal that killed it. ok is false when the inner process could not be
// started; the caller then runs in-process.
//
// The inner process gets SIGTERM when this one dies (even by SIGKILL). The
// kernel ties that to the OS thread that started the child; Go never ends
// a thread unless a goroutine exits while locked to it, which nothing here
// does.
func Supervise(args []string) (code int, ok bool) {
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	defer signal.Stop(sigs)
	defer signal.Stop(chld)

	inner, err := os.StartProcess(exe, append([]string{os.Args[0]}, args...), &os.ProcAttr{
		Env:   append(os.Environ(), EnvInner+"=1"),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM},
	})
	if err != nil {
		return 0, false
	}
	// The inner process is reaped below with every adopted orphan, so its
	// os.Process is never waited on.
	defer inner.Release()

	var status syscall.WaitStatus
	for {
		ws, done := reapAll(inner.Pid)
		if done {
			status = ws
			break
		}
		select {
		case s := <-sigs:
			_ = inner.Signal(s)
		case <-chld:
		}
	}

	killDescendants(os.Getpid(), leftoverGrace, descendants)
	reapAll(0)
	switch {
	case status.Exited():
		return status.ExitStatus(), true
	case status.Signaled():
		sig := status.Signal()
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond) // the signal is on its way
		return 128 + int(sig), true
	}
	return 1, true
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
