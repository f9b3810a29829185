package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// gitFixture makes the fixture's workspace a git repository with one
// commit and returns its .git folder.
func gitFixture(t *testing.T, f fixture) string {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = f.ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+f.home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return filepath.Join(f.ws, ".git")
}

// plants are what a command does to make the user's git run a program.
var plants = []struct{ name, script string }{
	{"a new hook", `printf '#!/bin/sh\ntouch "$OUT/pwned"\n' > .git/hooks/post-commit && chmod +x .git/hooks/post-commit`},
	{"core.hooksPath in the config", `git config core.hooksPath "$WS/h"`},
	{"core.fsmonitor appended to the config", `printf '[core]\n\tfsmonitor = touch "$OUT/pwned"\n' >> .git/config`},
	{"the config replaced by rename", `cp .git/config c && echo '[core] pager = x' >> c && mv -f c .git/config`},
	{"the hooks folder replaced", `mv .git/hooks h.old || rm -rf .git/hooks; mkdir -p .git/hooks && echo x > .git/hooks/pre-commit`},
	{"the .git folder moved aside and replaced", `mv .git g.old && mkdir .git && echo x > .git/config`},
}

func TestTheRepositorysHooksAndConfigCannotBeChangedByACommand(t *testing.T) {
	for _, p := range plants {
		t.Run(p.name, func(t *testing.T) {
			f := newFixture(t)
			gitDir := gitFixture(t, f)
			before := snapshotGit(t, gitDir)
			s := f.sandbox(t, WorkspaceWrite, false)
			if !s.prepared(t).kernel.shielded() {
				t.Skip("no mount namespace here (not root): the guard's test covers this case")
			}
			out, ok := f.run(t, s, p.script)
			if ok {
				t.Fatalf("%s succeeded:\n%s", p.script, out)
			}
			if after := snapshotGit(t, gitDir); after != before {
				t.Fatalf("the repository's hooks or config changed:\nbefore %s\nafter  %s", before, after)
			}
			if line := s.Check(); line != "" {
				t.Fatalf("Check found a change the shields should have stopped: %s", line)
			}
		})
	}
}

func TestACommandStillCommitsInAShieldedRepository(t *testing.T) {
	f := newFixture(t)
	gitFixture(t, f)
	s := f.sandbox(t, WorkspaceWrite, false)
	out, ok := f.run(t, s, `echo x > f && git add f && git -c user.name=t -c user.email=t@t commit -q -m f && git log --oneline | wc -l`)
	if !ok || strings.TrimSpace(out) != "2" {
		t.Fatalf("git add and commit in the workspace: ok=%v output:\n%s", ok, out)
	}
}

func TestWithoutTheShieldsTheGuardPutsBackWhatACommandPlanted(t *testing.T) {
	for _, p := range plants {
		t.Run(p.name, func(t *testing.T) {
			f := newFixture(t)
			gitDir := gitFixture(t, f)
			before := snapshotGit(t, gitDir)
			s := f.sandbox(t, WorkspaceWrite, false)
			// As where Atomic cannot make a mount namespace: no shields.
			k := s.prepared(t).kernel
			k.mu.Lock()
			if k.mountNS >= 0 {
				unix.Close(k.mountNS)
				k.mountNS = -1
			}
			k.mu.Unlock()
			s.p.guard = newGitGuard(gitShields([]string{f.ws}))
			out, _ := f.run(t, s, p.script)
			line := s.Check()
			if !strings.Contains(line, "put back") || !strings.Contains(line, gitDir) {
				t.Fatalf("Check = %q after %s (output %s)", line, p.script, out)
			}
			if strings.Contains(p.name, "moved aside") {
				if _, err := os.Stat(filepath.Join(gitDir, "config")); err == nil {
					if b, _ := os.ReadFile(filepath.Join(gitDir, "config")); string(b) == "x\n" {
						t.Fatal("the planted .git is still in place")
					}
				}
				return
			}
			if after := snapshotGit(t, gitDir); after != before {
				t.Fatalf("not put back:\nbefore %s\nafter  %s", before, after)
			}
			if again := s.Check(); again != "" {
				t.Fatalf("a second Check still finds a change: %s", again)
			}
		})
	}
}

func TestTheGuardLeavesAnUnchangedRepositoryAlone(t *testing.T) {
	f := newFixture(t)
	gitDir := gitFixture(t, f)
	g := newGitGuard(gitShields([]string{f.ws}))
	if err := os.WriteFile(filepath.Join(f.ws, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if line := g.check(); line != "" {
		t.Fatalf("check = %q with no change to %s", line, gitDir)
	}
}

func TestAReadDenyFileInTheWorkspaceIsHiddenFromCommands(t *testing.T) {
	f := newFixture(t)
	env := filepath.Join(f.ws, ".env")
	secretDir := filepath.Join(f.ws, "secrets")
	if err := os.MkdirAll(secretDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, c := range map[string]string{env: "KEY=hunter2\n", filepath.Join(secretDir, "k"): "hunter2\n", filepath.Join(f.ws, "ok.txt"): "fine\n"} {
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Config{Mode: WorkspaceWrite, Writable: []string{f.ws}, Hidden: []string{env, secretDir}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Hides() {
		t.Skip("no mount namespace here (not root): Hides says so, and the CLI warns")
	}
	out, _ := f.run(t, s, `cat .env; cat secrets/k; cp .env e2; ln .env e3; cat e2 e3; cat ok.txt`)
	if strings.Contains(out, "hunter2") || !strings.Contains(out, "fine") {
		t.Fatalf("output:\n%s", out)
	}
	if _, ok := f.run(t, s, `echo stolen > .env || mv .env gone`); ok {
		t.Fatal("the hidden file could be overwritten or moved")
	}
	if b, _ := os.ReadFile(env); string(b) != "KEY=hunter2\n" {
		t.Fatalf(".env changed: %q", b)
	}
}

func TestAnIsolatedAgentsCommandsWriteOnlyInItsWorktree(t *testing.T) {
	f := newFixture(t)
	gitFixture(t, f)
	tree := filepath.Join(f.ws, ".atomic", "worktrees", "a-1")
	cmd := exec.Command("git", "worktree", "add", "-q", "-b", "atomic/a-1", tree)
	cmd.Dir = f.ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("worktree add: %v %s", err, out)
	}
	s := f.sandbox(t, WorkspaceWrite, false).Narrow(tree)
	run := func(script string) (string, bool) {
		c := exec.Command("/bin/bash", "-c", script)
		c.Dir = tree
		c.Env = append(os.Environ(), "WS="+f.ws, "HOME="+f.home)
		var out strings.Builder
		c.Stdout, c.Stderr = &out, &out
		if err := s.Start(c); err != nil {
			t.Fatal(err)
		}
		ok := c.Wait() == nil // the output is whole once Wait returns
		return out.String(), ok
	}
	if out, ok := run(`echo x > mine && git add mine && git status --short && echo t > "$TMPDIR/t"`); !ok {
		t.Fatalf("writing in its own worktree failed:\n%s", out)
	}
	if out, ok := run(`echo x > "$WS/lead.txt"`); ok {
		t.Fatalf("the isolated agent wrote the lead's tree:\n%s", out)
	}
	if out, ok := run(`echo x > ../../../lead2.txt`); ok {
		t.Fatalf("the isolated agent wrote the lead's tree through ..:\n%s", out)
	}
	if out, ok := run(`cat "$WS/.git/HEAD" >/dev/null`); !ok {
		t.Fatalf("reads are as the session's: %s", out)
	}
}

// snapshotGit renders a repository's config files and hooks.
func snapshotGit(t *testing.T, gitDir string) string {
	t.Helper()
	var b strings.Builder
	fi, err := os.Stat(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "inode %d;", fi.Sys().(*syscall.Stat_t).Ino)
	for _, name := range []string{"config", "config.worktree"} {
		data, _ := os.ReadFile(filepath.Join(gitDir, name))
		b.WriteString(name + "=" + string(data) + ";")
	}
	filepath.WalkDir(filepath.Join(gitDir, "hooks"), func(p string, d os.DirEntry, err error) error {
		if err == nil {
			info, _ := d.Info()
			data, _ := os.ReadFile(p)
			b.WriteString(p + info.Mode().String() + string(data) + ";")
		}
		return nil
	})
	return b.String()
}

// BenchmarkGitGuardCheck is what the guard adds to every command where the
// shields are not up (Atomic not root): a repository with git's sample
// hooks, unchanged.
func BenchmarkGitGuardCheck(b *testing.B) {
	ws := b.TempDir()
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = ws
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	g := newGitGuard(gitShields([]string{ws}))
	for b.Loop() {
		if line := g.check(); line != "" {
			b.Fatal(line)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/check")
}
