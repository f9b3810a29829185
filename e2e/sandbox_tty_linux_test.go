package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Atomic is run from a terminal (a pty that is its controlling terminal,
// as in the user's shell); the model's commands try to push a line into
// that terminal's input, by /dev/tty and by the pty's own path, and, as
// root, to change a file outside the workspace. All are refused and the
// terminal's input stays empty.
func TestTheModelsCommandsCannotTypeIntoTheUsersTerminalNorChangeFilesOutside(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tiocsti")
	build := exec.Command("go", "build", "-o", bin, "./testdata/tiocsti")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the TIOCSTI program: %v\n%s", err, out)
	}
	tty, ttyPath := openPty(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(outside, old, old); err != nil {
		t.Fatal(err)
	}
	type check struct{ name, command, want string } // want: alternatives split by |
	checks := []check{
		{"TIOCSTI through /dev/tty", bin, "no such device or address"},
		// Not root: the pty is not the user's to open.
		{"TIOCSTI on the terminal by its path", bin + " " + ttyPath, "operation not permitted|permission denied"},
		{"no controlling terminal", "exec 3</dev/tty", "No such device or address"},
	}
	if os.Geteuid() == 0 && hasMountCaps() {
		checks = append(checks,
			check{"chmod outside as root", "chmod 777 " + outside, "chmod"},
			check{"touch -d outside as root", "touch -d 2000-01-01 " + outside, "touch"})
	}
	var commands, descriptions []string
	for _, c := range checks {
		commands = append(commands, c.command)
		descriptions = append(descriptions, c.name)
	}
	srv := bashCallsServer(t, commands, descriptions)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", workspace(t, nil), "-p", "try the terminal", "--permission-mode", "bypassPermissions")
	cmd.Stdin = tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if r := runCmd(t, cmd); r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	log := srv.Log()
	if len(log) != 2 {
		t.Fatalf("%d model requests, want 2", len(log))
	}
	results := log[1].LastToolResults()
	if len(results) != len(checks) {
		t.Fatalf("%d tool results, want %d", len(results), len(checks))
	}
	for i, c := range checks {
		res := results[i]
		refused := false
		for _, w := range strings.Split(c.want, "|") {
			refused = refused || strings.Contains(strings.ToLower(res.Content), strings.ToLower(w))
		}
		if !res.IsError || strings.Contains(res.Content, "injected") || !refused {
			t.Errorf("%s (%s) was not refused as expected (%q):\n%s", c.name, c.command, c.want, res.Content)
		}
	}
	if n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ); err != nil || n != 0 {
		t.Errorf("the terminal's input holds %d bytes (%v)", n, err)
	}
	fi, err := os.Stat(outside)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 || !fi.ModTime().Equal(old) {
		t.Errorf("the file outside changed: mode %v, modified %v", fi.Mode(), fi.ModTime())
	}
}

// hasMountCaps reports whether this process has CAP_SYS_ADMIN and
// CAP_SYS_CHROOT, which Atomic needs to give commands a read-only mount
// namespace: without it (root in a container), a root command still owns
// root's files outside the workspace.
func hasMountCaps() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			var eff uint64
			fmt.Sscanf(strings.TrimSpace(hex), "%x", &eff)
			return eff&(1<<unix.CAP_SYS_ADMIN) != 0 && eff&(1<<unix.CAP_SYS_CHROOT) != 0
		}
	}
	return false
}

// openPty returns a new pseudo-terminal's slave side and its path, both
// sides closed when the test ends.
func openPty(t *testing.T) (*os.File, string) {
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
	path := fmt.Sprintf("/dev/pts/%d", n)
	s, err := os.OpenFile(path, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}
