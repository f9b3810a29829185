package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestTheLeadsCLISessionIsKeptAcrossResumesAndReplacedWhenTheCLINamesANewOne(t *testing.T) {
	path := dbPath(t)
	cli := func() string { return savedSession(t, path, "s1").CLISession }
	r := Record(path, Options{}, meta("s1"), nil)
	r.Prompt("first")
	r.CLISession("cli-aaa")
	r.Close()
	if got := cli(); got != "cli-aaa" {
		t.Fatalf("CLI session after the first run %q; want cli-aaa", got)
	}
	resume := meta("s1")
	resume.Resume = true
	r = Record(path, Options{}, resume, nil)
	r.Prompt("second, the CLI says nothing new")
	r.Close()
	if got := cli(); got != "cli-aaa" {
		t.Fatalf("CLI session after a resume that named none %q; want cli-aaa kept", got)
	}
	r = Record(path, Options{}, resume, nil)
	r.Prompt("third")
	r.CLISession("cli-bbb")
	r.Close()
	if got := cli(); got != "cli-bbb" {
		t.Fatalf("CLI session after a resume that named cli-bbb %q", got)
	}
}

func TestAVersion1StoreGainsTheCLISessionColumnAndKeepsItsSessions(t *testing.T) {
	path := dbPath(t)
	raw := writeV1Store(t, path)
	if _, err := raw.Exec(`INSERT INTO sessions(id, dir, backend, model, status, started) VALUES ('old', '/p', 'claude-code', '', 'completed', 1)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, err := st.version(context.Background()); err != nil || v != SchemaVersion() {
		t.Fatalf("version %d, %v; want %d", v, err, SchemaVersion())
	}
	s, err := st.Session(context.Background(), "old")
	if err != nil || s.Backend != "claude-code" || s.CLISession != "" {
		t.Fatalf("the old session %+v, %v; want it kept, without a CLI session", s, err)
	}
}

func TestRemovingASessionRemovesTheHomeKeptForItsCLI(t *testing.T) {
	path := dbPath(t)
	r := Record(path, Options{}, meta("s1"), nil)
	r.Prompt("p")
	r.Close()
	home := CLIHome(path, "s1")
	if err := os.MkdirAll(filepath.Join(home, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	other := CLIHome(path, "s2")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Remove(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(home); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the removed session's CLI home: %v; want it gone", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("another session's CLI home: %v; want it kept", err)
	}
}
