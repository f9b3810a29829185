//go:build unix

package procgroup

import "syscall"

// Attr starts a command in a process group of its own, whose id is the
// command's pid, so that everything it starts can be ended together.
func Attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// Signal sends sig to every process of group pgid; sig 0 only checks
// that the group still has a process (syscall.ESRCH when it has none).
func Signal(pgid int, sig syscall.Signal) error { return syscall.Kill(-pgid, sig) }
