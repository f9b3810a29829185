package main

import (
	"syscall"
	"time"
	"unsafe"
)

// holdUnexeced starts what Go's os/exec starts for an instant before each
// exec, and its pidfd probe once: a clone sharing this process's memory
// (CLONE_VM|CLONE_VFORK) that runs no other program. It holds d and exits;
// this thread waits for it, as vfork's parent does.
func holdUnexeced(d time.Duration) {
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	pid := rawClone(uintptr(unsafe.Pointer(&ts)))
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(int(pid), &ws, 0, nil); err != syscall.EINTR {
			return
		}
	}
}

// rawClone is the clone; the child makes only raw system calls (it has
// the parent's stack and no runtime of its own) and exits.
//
//go:nosplit
//go:norace
func rawClone(ts uintptr) uintptr {
	pid, _, _ := syscall.RawSyscall6(syscall.SYS_CLONE, syscall.CLONE_VM|syscall.CLONE_VFORK|uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if pid == 0 {
		syscall.RawSyscall(syscall.SYS_NANOSLEEP, ts, 0, 0)
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
	}
	return pid
}
