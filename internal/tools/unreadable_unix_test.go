//go:build unix

package tools

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// asUnprivileged marks the test binary's re-run as user nobody.
const asUnprivileged = "ATOMIC_TOOLS_TEST_UNPRIVILEGED"

// runUnprivileged runs the calling test again as user nobody when the
// tests run as root, whom permission bits do not stop, and reports
// whether the caller should go on (false: the re-run did the work).
func runUnprivileged(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return true
	}
	if os.Getenv(asUnprivileged) != "" {
		t.Fatal("the unprivileged re-run is still root")
	}
	// The test binary sits in a folder only root may enter: copy it out.
	dir, err := os.MkdirTemp("", "atomic-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "tools.test")
	copyExecutable(t, os.Args[0], bin)
	cmd := exec.CommandContext(t.Context(), bin, "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Dir = dir
	cmd.Env = []string{asUnprivileged + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + os.TempDir()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the test as user nobody failed: %v\n%s", err, out)
	}
	t.Logf("ran as user nobody:\n%s", out)
	return false
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestGlobAndGrepNameTheFoldersTheyCouldNotReadInsteadOfFindingNothing(t *testing.T) {
	if !runUnprivileged(t) {
		return
	}
	ws := newWorkspace(t, map[string]string{
		"open/a.go":   "package a // needle\n",
		"locked/b.go": "package b // needle\n",
	})
	locked := filepath.Join(ws.Root, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	if _, err := os.ReadDir(locked); err == nil {
		t.Fatal("this user can still read a folder of mode 000: the test would prove nothing")
	}
	glob, grep := NewGlob(ws), NewGrep(ws)

	// The folder searched is unreadable: an error, not "No files found".
	assertContains(t, mustFail(t, glob, map[string]any{"pattern": "*.go", "path": "locked"}), "cannot read the folder", "locked", "permission denied")
	assertContains(t, mustFail(t, grep, map[string]any{"pattern": "needle", "path": "locked"}), "cannot read the folder", "locked", "permission denied")

	// A folder below it is unreadable: what was found, and what was not searched.
	got := mustSucceed(t, glob, map[string]any{"pattern": "**/*.go"})
	assertContains(t, got, "open/a.go", "1 folder(s) could not be read", locked+" (permission denied)")
	got = mustSucceed(t, glob, map[string]any{"pattern": "**/*.rs"})
	assertContains(t, got, `No files found matching "**/*.rs"`, "1 folder(s) could not be read", locked)
	got = mustSucceed(t, grep, map[string]any{"pattern": "needle", "output_mode": "files_with_matches"})
	assertContains(t, got, "open/a.go", "1 folder(s) could not be read", locked)
}
