//go:build unix

package procgroup

import "syscall"

// Attr starts a command in a process group of its own, whose id is the
// command's pid, so that everything it starts can be ended together.
func Attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// SessionAttr starts a command in a session of its own with no
// controlling terminal: it cannot open /dev/tty, so it can neither write
// to the user's terminal behind Atomic's back nor push input into it
// (TIOCSTI) for the user's shell to run after Atomic exits. A new session
// is also a new process group whose id is the command's pid, so Signal
// ends it and everything it started as Attr's group does. For the
// commands the model runs; the CLIs and servers Atomic starts keep Attr.
func SessionAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// CommandAttr is SessionAttr when this process has a controlling
// terminal, which the command would otherwise share, and Attr when it has
// none (CI, an editor's agent, a pipe): a new session also makes the
// kernel create and free a scheduler group (autogroup), over a
// millisecond per command on a busy machine.
func CommandAttr() *syscall.SysProcAttr {
	fd, err := syscall.Open("/dev/tty", syscall.O_RDONLY|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return Attr()
	}
	syscall.Close(fd)
	return SessionAttr()
}

// Signal sends sig to every process of group pgid; sig 0 only checks
// that the group still has a process (syscall.ESRCH when it has none).
func Signal(pgid int, sig syscall.Signal) error { return syscall.Kill(-pgid, sig) }
