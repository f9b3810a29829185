package testkit

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// GitRepo makes a git repository in a fresh temporary directory with one
// commit of files (path → content), an identity of its own, and returns
// its top level with symlinks resolved (as git reports it).
func GitRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "config", "user.name", "Test User")
	Git(t, dir, "config", "user.email", "test@example.com")
	WriteFiles(t, dir, files)
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

// Git runs git in dir and returns its output without the final newline;
// a failure fails the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimRight(string(out), "\n")
}
