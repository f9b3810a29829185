package procgroup

import (
	"os"
	"syscall"
)

// Attr starts a command in a new process group. Windows has no group
// signals, so Signal reaches only the group's first process; ending its
// descendants would take a job object, which is not done here.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// SessionAttr is Attr: Windows has no controlling terminals to detach
// from.
func SessionAttr() *syscall.SysProcAttr { return Attr() }

// CommandAttr is Attr (see SessionAttr).
func CommandAttr() *syscall.SysProcAttr { return Attr() }

// Signal ends process pgid for any signal but 0 (Windows cannot deliver
// SIGTERM: every signal terminates at once); sig 0 only checks that the
// process exists (syscall.ESRCH when it does not).
func Signal(pgid int, sig syscall.Signal) error {
	p, err := os.FindProcess(pgid)
	if err != nil {
		return syscall.ESRCH
	}
	defer p.Release()
	if sig == 0 {
		return nil
	}
	return p.Kill()
}
