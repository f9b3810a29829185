package tools

import (
	"os"
	"syscall"
)

// groupAttr starts a command in a new process group. Windows has no
// group signals: signalGroup reaches only the group's first process.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// signalGroup ends process pgid for any signal but 0, which only checks
// that it exists.
func signalGroup(pgid int, sig syscall.Signal) error {
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
