package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// change saves p in the open checkpoint and writes s, as a file tool does.
func change(t *testing.T, s *Store, p, text string) {
	t.Helper()
	s.Save(p)
	write(t, p, text)
}

func TestRestoreCodePutsEveryFileBackAsItWasBeforeThePromptAndDeletesNewOnes(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.go"), filepath.Join(dir, "sub", "b.go"), filepath.Join(dir, "c.go")
	write(t, a, "a0")
	s := New(0)
	s.Begin("first", time.Now(), 0, "")
	change(t, s, a, "a1")
	change(t, s, a, "a1b") // the second change keeps the first snapshot
	s.Begin("second", time.Now(), 2, "")
	change(t, s, a, "a2")
	change(t, s, b, "b2")
	s.Begin("third", time.Now(), 4, "")
	change(t, s, c, "c3")

	got := s.List()
	if len(got) != 3 || got[0].Prompt != "third" || got[2].Prompt != "first" || len(got[1].Files) != 2 {
		t.Fatalf("List = %+v, want newest first with the second's two files", got)
	}
	res, err := s.RestoreCode(2)
	if err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "a1b" || !strings.Contains(read(t, b), "no such file") || !strings.Contains(read(t, c), "no such file") {
		t.Fatalf("after restoring to before the second prompt: a=%q b=%q c=%q", read(t, a), read(t, b), read(t, c))
	}
	if len(res.Written) != 1 || len(res.Deleted) != 2 {
		t.Fatalf("Restored = %+v", res)
	}
	if _, err := s.RestoreCode(1); err != nil {
		t.Fatal(err)
	}
	if read(t, a) != "a0" {
		t.Fatalf("a = %q after restoring to before the first prompt, want a0", read(t, a))
	}
}

func TestAChangeBeforeTheFirstPromptBelongsToNoCheckpoint(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	s := New(0)
	change(t, s, p, "x")
	s.Begin("p", time.Now(), 0, "")
	if got := s.List(); len(got) != 1 || len(got[0].Files) != 0 {
		t.Fatalf("List = %+v, want one checkpoint with no file", got)
	}
}

func TestAFileOverTheLimitIsListedAsLostNotRestored(t *testing.T) {
	dir := t.TempDir()
	big, small := filepath.Join(dir, "big"), filepath.Join(dir, "small")
	write(t, big, strings.Repeat("x", 100))
	write(t, small, "s")
	s := New(50)
	s.Begin("p", time.Now(), 0, "")
	change(t, s, big, "changed")
	change(t, s, small, "changed")
	res, err := s.RestoreCode(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, lost := res.Lost[big]; !lost || read(t, big) != "changed" || read(t, small) != "s" {
		t.Fatalf("Restored = %+v big=%q small=%q", res, read(t, big), read(t, small))
	}
}

func TestRestoreReplacesASymlinkRatherThanWritingThroughIt(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	p, secret := filepath.Join(dir, "f"), filepath.Join(outside, "secret")
	write(t, p, "orig")
	write(t, secret, "keep")
	s := New(0)
	s.Begin("p", time.Now(), 0, "")
	s.Save(p)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RestoreCode(1); err != nil {
		t.Fatal(err)
	}
	if read(t, secret) != "keep" || read(t, p) != "orig" {
		t.Fatalf("secret=%q f=%q", read(t, secret), read(t, p))
	}
}

func TestDropForgetsTheRewoundPromptsAndFreesTheirBytes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	write(t, p, "0123456789")
	s := New(15)
	s.Begin("one", time.Now(), 0, "")
	s.Begin("two", time.Now(), 2, "")
	change(t, s, p, "x")
	s.Drop(2)
	if got := s.List(); len(got) != 1 || got[0].Seq != 1 {
		t.Fatalf("List = %+v after Drop(2)", got)
	}
	s.Begin("three", time.Now(), 2, "")
	change(t, s, p, "y") // fits again: two's bytes were freed
	if res, _ := s.RestoreCode(3); len(res.Lost) != 0 || read(t, p) != "x" {
		t.Fatalf("Restored = %+v, f = %q", res, read(t, p))
	}
	if _, err := s.RestoreCode(2); err == nil {
		t.Fatal("RestoreCode of a dropped checkpoint succeeded")
	}
}
