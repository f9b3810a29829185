package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// prepared prepares s (as its first command would) and returns what it
// made.
func (s *Sandbox) prepared(t *testing.T) *prepared {
	t.Helper()
	if err := s.p.prepare(); err != nil {
		t.Fatal(err)
	}
	return s.p
}

// sandboxDirs lists the sandbox temp dirs under dir.
func sandboxDirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "atomic-sandbox-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestASessionThatRunsNoCommandMakesNoTempDirNorRules(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	f := newFixture(t)
	cache := filepath.Join(tmp, "cache")
	s, err := New(Config{Mode: WorkspaceWrite, Writable: []string{f.ws}, Secrets: DefaultSecrets(f.home), CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if got := sandboxDirs(t, tmp); len(got) != 0 {
		t.Errorf("New made %v before any command", got)
	}
	if s.p.kernel != nil {
		t.Error("New made the kernel rules before any command")
	}
	if _, err := os.Stat(cache); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("New made the build cache before any command: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(exec.Command("true")); !errors.Is(err, errClosed) {
		t.Fatalf("Start after Close = %v, want %v", err, errClosed)
	}
	if got := sandboxDirs(t, tmp); len(got) != 0 {
		t.Errorf("a Start after Close made %v", got)
	}
}

func TestCommandsStartedAtOnceShareOneSandboxMadeByTheFirst(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	f := newFixture(t)
	s, err := New(Config{Mode: WorkspaceWrite, Writable: []string{f.ws}, Secrets: DefaultSecrets(f.home)})
	if err != nil {
		t.Fatal(err)
	}
	narrow := s.Narrow(f.ws)
	var wg sync.WaitGroup
	outs := make([]string, 8)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			view := s
			if i%2 == 1 {
				view = narrow
			}
			cmd := exec.Command("/bin/sh", "-c", `echo "$TMPDIR" && echo x > "$TMPDIR/f$$" && ! cat "$HOME/.ssh/id_x" 2>/dev/null`)
			cmd.Env = []string{"HOME=" + f.home}
			var out strings.Builder
			cmd.Stdout = &out
			if err := view.Start(cmd); err != nil {
				t.Error(err)
				return
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("a command in the sandbox: %v", err)
			}
			outs[i] = strings.TrimSpace(out.String())
		}()
	}
	wg.Wait()
	dirs := sandboxDirs(t, tmp)
	if len(dirs) != 1 {
		t.Fatalf("sandbox temp dirs %v, want one", dirs)
	}
	for i, o := range outs {
		if o != filepath.Join(tmp, dirs[0]) {
			t.Errorf("command %d had TMPDIR %q, want %q", i, o, filepath.Join(tmp, dirs[0]))
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := sandboxDirs(t, tmp); len(got) != 0 {
		t.Errorf("%v left after Close", got)
	}
}

// Without the mount shields, the guard compares with the repository as
// the session found it: a hook planted before the first command (by the
// file tools, an MCP server, anything not sandboxed) is put back after
// that command, as one planted later is.
func TestWithoutTheShieldsAHookPlantedBeforeTheFirstCommandIsPutBack(t *testing.T) {
	was := mayShield
	mayShield = func() bool { return false }
	t.Cleanup(func() { mayShield = was })
	f := newFixture(t)
	gitDir := gitFixture(t, f)
	before := snapshotGit(t, gitDir)
	s := f.sandbox(t, WorkspaceWrite, false)
	hook := filepath.Join(gitDir, "hooks", "post-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch pwned\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, ok := f.run(t, s, "true"); !ok {
		t.Fatalf("true: %s", out)
	}
	if s.p.kernel.shielded() {
		t.Fatal("the shields are up in a process playing one that cannot make them")
	}
	if line := s.Check(); !strings.Contains(line, "put back") {
		t.Fatalf("Check = %q after a hook was planted before the first command", line)
	}
	if after := snapshotGit(t, gitDir); after != before {
		t.Fatalf("not put back:\nbefore %s\nafter  %s", before, after)
	}
}
