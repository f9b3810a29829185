package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAddWritableLetsCommandsStartedAfterWriteTheFolderAndNotOnesStartedBefore(t *testing.T) {
	f := newFixture(t)
	s := f.sandbox(t, WorkspaceWrite, false)
	add := filepath.Join(f.outside, "added")
	mkdirs(t, add, filepath.Join(f.ws, "wt"))
	narrow := s.Narrow(filepath.Join(f.ws, "wt"))
	if out, ok := f.run(t, s, `echo x > `+add+`/early`); ok {
		t.Fatalf("a command wrote %s before it was added: %s", add, out)
	}
	// Started before the add, it writes after it: its rules stay.
	before := exec.Command("/bin/bash", "-c", `while [ ! -e "$WS/go" ]; do sleep 0.02; done; echo x > `+add+`/before`)
	before.Dir, before.Env = f.ws, append(os.Environ(), "WS="+f.ws)
	var out strings.Builder
	before.Stdout, before.Stderr = &out, &out
	if err := s.Start(before); err != nil {
		t.Fatal(err)
	}
	if err := s.AddWritable(add); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.ws, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := before.Wait(); err == nil {
		t.Fatalf("a command started before the add wrote %s: %s", add, out.String())
	}
	for i := range 3 {
		if out, ok := f.run(t, s, `echo x > `+add+`/after && echo y > "$WS/still" && ! echo z > "$OUT/not-added" && ! cat ~/.ssh/id_x`); !ok {
			t.Fatalf("command %d started after the add: %s", i, out)
		}
		if out, ok := f.run(t, narrow, `! echo x > `+add+`/narrowed && echo y > "$WS/wt/n"`); !ok {
			t.Fatalf("narrowed command %d after the add: %s", i, out)
		}
	}
	for p, want := range map[string]bool{"before": false, "early": false, "after": true, "narrowed": false} {
		if _, err := os.Stat(filepath.Join(add, p)); (err == nil) != want {
			t.Errorf("%s written: %v, want %v", p, err == nil, want)
		}
	}
}

func TestAddWritableBeforeAnyCommandIsInTheFirstCommandsRules(t *testing.T) {
	f := newFixture(t)
	s := f.sandbox(t, WorkspaceWrite, false)
	add := filepath.Join(f.outside, "added")
	mkdirs(t, add)
	if err := s.AddWritable(add); err != nil {
		t.Fatal(err)
	}
	if out, ok := f.run(t, s, `echo x > `+add+`/first`); !ok {
		t.Fatalf("the first command could not write the added folder: %s", out)
	}
}

func TestAddWritableRefusesByNameWhatTheSandboxProtectsOrWhatIsNoFolder(t *testing.T) {
	f := newFixture(t)
	mkdirs(t, filepath.Join(f.ws, ".git", "hooks"), filepath.Join(f.home, ".ssh", "keys"))
	file := filepath.Join(f.outside, "file.txt")
	s, err := New(Config{Mode: WorkspaceWrite, Writable: []string{f.ws}, Secrets: DefaultSecrets(f.home)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, dir := range []string{
		filepath.Join(f.home, ".ssh"), filepath.Join(f.home, ".ssh", "keys"), f.home,
		filepath.Join(f.ws, ".git", "hooks"), filepath.Join(f.ws, ".git"),
		filepath.Join(f.outside, "missing"), file,
	} {
		err := s.AddWritable(dir)
		if err == nil || !strings.Contains(err.Error(), dir) {
			t.Errorf("AddWritable(%s) = %v, want a refusal naming it", dir, err)
		}
	}
	if out, ok := f.run(t, s, `echo x >> ~/.ssh/id_x || true; cat ~/.ssh/id_x`); ok {
		t.Fatalf("a refused secret store became readable: %s", out)
	}
}

func TestAddWritableShieldsTheAddedRepositorysHooks(t *testing.T) {
	t.Run("with the mount shields where Atomic may make them", func(t *testing.T) { addedRepoHooksStay(t) })
	t.Run("with the git guard where it may not", func(t *testing.T) {
		was := mayShield
		mayShield = func() bool { return false }
		t.Cleanup(func() { mayShield = was })
		addedRepoHooksStay(t)
	})
}

func addedRepoHooksStay(t *testing.T) {
	f := newFixture(t)
	s := f.sandbox(t, WorkspaceWrite, false)
	repo := filepath.Join(f.outside, "repo")
	mkdirs(t, filepath.Join(repo, ".git", "hooks"))
	if _, ok := f.run(t, s, `true`); !ok { // the kernel rules exist before the add
		t.Fatal("true failed")
	}
	if err := s.AddWritable(repo); err != nil {
		t.Fatal(err)
	}
	out, _ := f.run(t, s, `echo x > `+repo+`/file && printf '#!/bin/sh\n' > `+repo+`/.git/hooks/pre-commit`)
	s.Check()
	if _, err := os.Stat(filepath.Join(repo, "file")); err != nil {
		t.Errorf("the added repository's files are not writable: %s", out)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "hooks", "pre-commit")); err == nil {
		t.Errorf("a hook planted in the added repository stayed: %s", out)
	}
}

func TestAddWritableInReadOnlyModeLetsNoCommandWrite(t *testing.T) {
	f := newFixture(t)
	s := f.sandbox(t, ReadOnly, false)
	add := filepath.Join(f.outside, "added")
	mkdirs(t, add)
	if err := s.AddWritable(add); err != nil {
		t.Fatal(err)
	}
	if out, ok := f.run(t, s, `echo x > `+add+`/ro`); ok {
		t.Fatalf("a read-only sandbox let a command write the added folder: %s", out)
	}
}
