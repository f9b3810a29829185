package tools

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/atomic-agent/atomic/internal/sandbox"
)

// A command with a controlling terminal could write to the user's
// terminal behind Atomic's back or push input into it for the user's
// shell to run after Atomic exits. Atomic is run here from a terminal
// (a pty that is its controlling terminal); the commands it runs, in the
// sandbox or not, have none: /dev/tty does not open (ENXIO).
func TestBashCommandsHaveNoControllingTerminalEvenWhenAtomicHasOne(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []sandbox.Mode{"", sandbox.WorkspaceWrite} {
		t.Run(fmt.Sprintf("sandbox %q", mode), func(t *testing.T) {
			tty := openTestPty(t)
			cmd := exec.Command(self)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), bashHelperEnv+`=exec 3<>/dev/tty && echo "has a terminal" >&3 && echo HAS-TTY`, bashHelperSandbox+"="+string(mode))
			cmd.Stdin = tty
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			if err := cmd.Run(); err != nil {
				t.Fatalf("the helper failed: %v\n%s", err, out.String())
			}
			if got := out.String(); strings.Contains(got, "HAS-TTY") || !strings.Contains(got, "No such device or address") {
				t.Fatalf("the command opened Atomic's controlling terminal:\n%s", got)
			}
		})
	}
}

// openTestPty returns a new pseudo-terminal's slave side.
func openTestPty(t *testing.T) *os.File {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
