package tools

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// flipper swaps, in a loop until stopped, the workspace's folder d and
// file f with symlinks to a folder and a file outside holding a secret
// (renameat2 RENAME_EXCHANGE: each swap is atomic, as an attacker's
// command would do it).
func flipper(t *testing.T, ws, secretDir string) (stop func()) {
	t.Helper()
	for _, l := range [][2]string{{secretDir, "d-evil"}, {filepath.Join(secretDir, "file.txt"), "f-evil.txt"}} {
		if err := os.Symlink(l[0], filepath.Join(ws, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			for _, p := range [][2]string{{"d", "d-evil"}, {"f.txt", "f-evil.txt"}} {
				_ = unix.Renameat2(unix.AT_FDCWD, filepath.Join(ws, p[0]), unix.AT_FDCWD, filepath.Join(ws, p[1]), unix.RENAME_EXCHANGE)
			}
		}
	})
	return sync.OnceFunc(func() { close(done); wg.Wait() })
}

// A command flipping symlinks while the file tools run must not get them
// to read a file outside the workspace or to write there: the tools open
// what they checked through the workspace root.
func TestFileToolsNeitherReadNorWriteOutsideWhileACommandFlipsSymlinks(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"d/file.txt": "harmless\n", "f.txt": "harmless\n"})
	secretDir := t.TempDir()
	writeTree(t, secretDir, map[string]string{"file.txt": "TOP-SECRET\n", "secret-name.txt": "TOP-SECRET\n"})
	read, write, grep, ls := NewRead(ws), NewWrite(ws), NewGrep(ws), NewLs(ws)
	stop := flipper(t, ws.Root, secretDir)
	defer stop()

	leaks, ok := 0, 0
	check := func(res Result) {
		if strings.Contains(res.Content, "TOP-SECRET") || strings.Contains(res.Content, "secret-name") {
			leaks++
		} else if !res.IsError {
			ok++
		}
	}
	for i := range 300 {
		check(call(t, read, map[string]any{"file_path": "d/file.txt"}))
		check(call(t, read, map[string]any{"file_path": "f.txt"}))
		check(call(t, write, map[string]any{"file_path": "d/out.txt", "content": "written\n"}))
		check(call(t, write, map[string]any{"file_path": "f.txt", "content": "harmless\n"}))
		if i%3 == 0 {
			check(call(t, grep, map[string]any{"pattern": "SECRET|harmless", "path": "d", "output_mode": "content"}))
			check(call(t, ls, map[string]any{"path": "d"}))
		}
	}
	stop()
	if leaks > 0 {
		t.Errorf("%d tool calls showed the secret outside the workspace", leaks)
	}
	entries, err := os.ReadDir(secretDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "file.txt" && e.Name() != "secret-name.txt" {
			t.Errorf("a tool wrote %s outside the workspace", e.Name())
		}
	}
	if got := readFile(t, filepath.Join(secretDir, "file.txt")); got != "TOP-SECRET\n" {
		t.Errorf("the file outside was overwritten: %q", got)
	}
	if ok == 0 {
		t.Fatal("no call succeeded: the test shows nothing")
	}
	t.Logf("%d of 1400 calls succeeded, the rest were refused", ok)
}

// Opening through the root keeps what symlinks could do before: one
// inside the workspace (absolute or relative) or into an --add-dir folder
// is followed by every file tool; one leading outside is refused.
func TestFileToolsStillFollowSymlinksThatStayInAllowedRoots(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"src/a.txt": "in the workspace\n"})
	extra := t.TempDir()
	writeTree(t, extra, map[string]string{"b.txt": "in the extra root\n"})
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"c.txt": "outside\n"})
	ws.ExtraRoots = []string{extra}
	for name, to := range map[string]string{
		"abs.txt":   filepath.Join(ws.Root, "src/a.txt"),
		"rel.txt":   "src/a.txt",
		"extra.txt": filepath.Join(extra, "b.txt"),
		"out.txt":   filepath.Join(outside, "c.txt"),
		"srcdir":    filepath.Join(ws.Root, "src"),
	} {
		if err := os.Symlink(to, filepath.Join(ws.Root, name)); err != nil {
			t.Fatal(err)
		}
	}
	read := NewRead(ws)
	assertContains(t, mustSucceed(t, read, map[string]any{"file_path": "abs.txt"}), "in the workspace")
	assertContains(t, mustSucceed(t, read, map[string]any{"file_path": "rel.txt"}), "in the workspace")
	assertContains(t, mustSucceed(t, read, map[string]any{"file_path": "extra.txt"}), "in the extra root")
	assertContains(t, mustSucceed(t, read, map[string]any{"file_path": "srcdir/a.txt"}), "in the workspace")
	assertContains(t, mustFail(t, read, map[string]any{"file_path": "out.txt"}), "outside the workspace")
	mustSucceed(t, NewWrite(ws), map[string]any{"file_path": "extra.txt", "content": "changed\n"})
	if got := readFile(t, filepath.Join(extra, "b.txt")); got != "changed\n" {
		t.Errorf("a write through a symlink into the extra root wrote %q", got)
	}
	got := mustSucceed(t, NewGrep(ws), map[string]any{"pattern": "workspace|changed|outside", "output_mode": "files_with_matches"})
	assertContains(t, got, "abs.txt", "rel.txt", "extra.txt", "src/a.txt")
	if strings.Contains(got, "out.txt") {
		t.Errorf("grep followed a symlink outside:\n%s", got)
	}
	assertContains(t, mustSucceed(t, NewGlob(ws), map[string]any{"pattern": "*.txt"}), "abs.txt", "extra.txt")
}
