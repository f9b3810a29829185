package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ioctlHelper does a terminal ioctl on stdin and prints "ioctl ok" or the
// error.
func ioctlHelper(args string) int {
	name, text, _ := strings.Cut(args, " ")
	report := func(errno unix.Errno) int {
		if errno != 0 {
			fmt.Printf("ioctl %s: %v\n", name, errno)
			return 1
		}
		fmt.Println("ioctl ok")
		return 0
	}
	switch name {
	case "TIOCSTI", "TIOCSTI-HIGH":
		req := uint64(ioctlTIOCSTI)
		if name == "TIOCSTI-HIGH" {
			req |= 1 << 32 // the kernel reads the request as an unsigned int
		}
		for i := range len(text) {
			c := text[i]
			if _, _, errno := unix.Syscall(unix.SYS_IOCTL, 0, uintptr(req), uintptr(unsafe.Pointer(&c))); errno != 0 {
				return report(errno)
			}
		}
		return report(0)
	case "TIOCLINUX":
		sub := byte(3) // TIOCL_PASTESEL: paste the console's selection as input
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, 0, ioctlTIOCLINUX, uintptr(unsafe.Pointer(&sub)))
		return report(errno)
	}
	fmt.Println("bad helper args:", args)
	return 2
}

// openPty returns a new pseudo-terminal's slave side, the master kept
// open until the test ends.
func openPty(t *testing.T) *os.File {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pty: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// runOnTerminal runs the ioctl helper with tty as its stdin and
// controlling terminal (where TIOCSTI needs no capability), confined by
// s, and returns its output and how many bytes wait in tty's input.
func runOnTerminal(t *testing.T, s *Sandbox, tty *os.File, args string) (string, int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), helperEnv+"=ioctl "+args)
	cmd.Stdin = tty
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := s.Start(cmd); err != nil {
		t.Fatalf("starting the helper: %v", err)
	}
	var exit *exec.ExitError
	if err := cmd.Wait(); err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	queued, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
	if err != nil {
		t.Fatalf("reading the terminal's input queue: %v", err)
	}
	return out.String(), queued
}

// A command that could push text into a terminal's input would have the
// user's shell run it after Atomic exits. The seccomp filter refuses
// TIOCSTI (however the request's unused high bits are set) with network
// or without; the unconfined run shows that this kernel would allow it.
func TestASandboxedCommandCannotPushTextIntoATerminalsInput(t *testing.T) {
	f := newFixture(t)
	for _, req := range []string{"TIOCSTI", "TIOCSTI-HIGH"} {
		for _, network := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s network=%v", req, network), func(t *testing.T) {
				tty := openPty(t)
				out, queued := runOnTerminal(t, f.sandbox(t, WorkspaceWrite, network), tty, req+" touch /tmp/pwned\n")
				if !strings.Contains(out, "operation not permitted") || queued != 0 {
					t.Fatalf("a sandboxed %s was not refused with EPERM (%d bytes queued in the terminal's input): %s", req, queued, out)
				}
			})
		}
		t.Run(req+" unsandboxed", func(t *testing.T) {
			if b, _ := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti"); strings.TrimSpace(string(b)) == "0" {
				t.Skip("this kernel refuses TIOCSTI to everyone (dev.tty.legacy_tiocsti=0)")
			}
			tty := openPty(t)
			out, queued := runOnTerminal(t, nil, tty, req+" echo injected\n")
			if !strings.Contains(out, "ioctl ok") || queued == 0 {
				t.Fatalf("the unconfined %s did not reach the terminal (%d bytes queued), so the test proves nothing: %s", req, queued, out)
			}
		})
	}
}

// TIOCLINUX's paste asks a Linux console to type its selection; on a pty
// the kernel answers EINVAL, but the filter refuses it before that.
func TestASandboxedCommandCannotAskTheConsoleToPaste(t *testing.T) {
	f := newFixture(t)
	tty := openPty(t)
	if out, _ := runOnTerminal(t, f.sandbox(t, WorkspaceWrite, true), tty, "TIOCLINUX"); !strings.Contains(out, "operation not permitted") {
		t.Fatalf("a sandboxed TIOCLINUX was not refused with EPERM: %s", out)
	}
	if out, _ := runOnTerminal(t, nil, tty, "TIOCLINUX"); strings.Contains(out, "operation not permitted") {
		t.Fatalf("the unconfined TIOCLINUX got EPERM too, so the test cannot tell the filter's answer: %s", out)
	}
}
