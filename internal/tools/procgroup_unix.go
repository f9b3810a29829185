//go:build !windows

package tools

import "syscall"

// groupAttr starts a command in a process group of its own, so that
// everything it starts can be ended together.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to every process of group pgid (0: just checks
// that one exists).
func signalGroup(pgid int, sig syscall.Signal) error { return syscall.Kill(-pgid, sig) }
