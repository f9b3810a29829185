//go:build unix

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newcomer runs the binary as a newcomer would, in a fresh home; setup
// may change the command before it runs.
func newcomer(t *testing.T, setup func(*exec.Cmd), args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = home
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state")}
	if setup != nil {
		setup(cmd)
	}
	return runCmd(t, cmd)
}

// /dev/null is a character device but no terminal: the chat UI says it
// needs one instead of Bubble Tea's "could not create cancelable reader".
func TestTheChatUIOnDevNullSaysItNeedsATerminal(t *testing.T) {
	r := newcomer(t, func(cmd *exec.Cmd) {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		cmd.Stdin = f
	}, "--demo")
	if r.code != 2 || !strings.Contains(r.stderr, "the chat UI needs a terminal") || strings.Contains(r.stderr, "bubbletea") {
		t.Fatalf("exit %d, stderr %q; want 2 and the needs-a-terminal line", r.code, r.stderr)
	}
}

// A shell whose folder was deleted under it: the run stops at once and
// says so (it ran in "" and exited 0 before).
func TestARunFromADeletedFolderExitsNonZeroSayingSo(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	r := newcomer(t, func(cmd *exec.Cmd) {
		cmd.Args = append([]string{"sh", "-c", `cd "$1" && rmdir "$1" && shift && exec "$@"`, "sh", gone, binary}, cmd.Args[1:]...)
		cmd.Path, _ = exec.LookPath("sh")
	}, "run", "--demo", "-p", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "atomic: the current folder is gone") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and the folder named gone", r.code, r.stdout, r.stderr)
	}
}
