package tools

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteCreatesFilesAndParentDirectories(t *testing.T) {
	ws := newWorkspace(t, nil)
	got := mustSucceed(t, NewWrite(ws), map[string]any{"file_path": "a/b/c.txt", "content": "hello\n"})
	p := filepath.Join(ws.Root, "a/b/c.txt")
	assertContains(t, got, "Created "+p, "6 bytes")
	if s := readFile(t, p); s != "hello\n" {
		t.Fatalf("content = %q", s)
	}
}

func TestWriteOverwritesKeepingPermissions(t *testing.T) {
	ws := newWorkspace(t, nil)
	p := filepath.Join(ws.Root, "run.sh")
	if err := os.WriteFile(p, []byte("old content\n"), 0o750); err != nil {
		t.Fatal(err)
	}
	got := mustSucceed(t, NewWrite(ws), map[string]any{"file_path": p, "content": "new"})
	assertContains(t, got, "Overwrote "+p, "3 bytes", "it had 12")
	if s := readFile(t, p); s != "new" {
		t.Fatalf("content = %q", s)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o750 {
		t.Fatalf("mode = %v, want 0750", fi.Mode().Perm())
	}
}

func TestWriteRefusesDirectoriesAndPathsOutside(t *testing.T) {
	outside := t.TempDir()
	ws := newWorkspace(t, map[string]string{"dir/": ""})
	if err := os.Symlink(outside, filepath.Join(ws.Root, "out")); err != nil {
		t.Fatal(err)
	}
	write := NewWrite(ws)
	assertContains(t, mustFail(t, write, map[string]any{"file_path": "dir", "content": "x"}), "is a directory")
	assertContains(t, mustFail(t, write, map[string]any{"file_path": "../escape.txt", "content": "x"}), "outside the workspace")
	assertContains(t, mustFail(t, write, map[string]any{"file_path": "out/escape.txt", "content": "x"}), "outside the workspace")
	if _, err := os.Stat(filepath.Join(outside, "escape.txt")); err == nil {
		t.Fatal("a file was written outside the workspace")
	}
}

func TestWriteLockKeysAreTheRealPathAndSubjectTheRelativeOne(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"real/f.txt": "x"})
	if err := os.Symlink(filepath.Join(ws.Root, "real"), filepath.Join(ws.Root, "alias")); err != nil {
		t.Fatal(err)
	}
	w := NewWrite(ws)
	l, s := w.(Locker), w.(Subjecter)
	k1 := l.LockKeys(input(t, map[string]any{"file_path": "real/f.txt", "content": ""}))
	k2 := l.LockKeys(input(t, map[string]any{"file_path": filepath.Join(ws.Root, "alias/f.txt"), "content": ""}))
	if len(k1) != 1 || !slices.Equal(k1, k2) || !filepath.IsAbs(k1[0]) {
		t.Fatalf("lock keys %v and %v should be one absolute path", k1, k2)
	}
	if got := s.Subject(input(t, map[string]any{"file_path": filepath.Join(ws.Root, "real/f.txt")})); got != "real/f.txt" {
		t.Fatalf("Subject = %q, want real/f.txt", got)
	}
	if got := s.Subject(input(t, map[string]any{"file_path": "/etc/passwd"})); got != "/etc/passwd" {
		t.Fatalf("Subject of an outside path = %q", got)
	}
}
