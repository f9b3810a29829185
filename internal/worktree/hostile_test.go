package worktree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile is something a command the model ran could leave in the
// repository (or Atomic's environment could carry) that would run a
// program when git runs there. plant makes it write marker when run.
type hostile struct {
	name  string
	plant func(t *testing.T, repo, marker string)
}

// script writes an executable shell script that appends its name and
// arguments to marker (and, as a filter or textconv, passes its input
// through).
func script(t *testing.T, p, marker string) string {
	t.Helper()
	write(t, p, "#!/bin/sh\necho \"$0 $*\" >> '"+marker+"'\ncat\n")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// gitHooks are every hook git 2.39 runs; those marked by the issue
// (reference-transaction, post-index-change, post-checkout, post-commit)
// run even with --no-verify.
var gitHooks = []string{"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit",
	"pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase",
	"post-checkout", "post-merge", "pre-push", "pre-receive", "update", "proc-receive",
	"post-receive", "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc",
	"post-rewrite", "sendemail-validate", "fsmonitor-watchman", "p4-changelist",
	"p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit", "post-index-change"}

func hostiles() []hostile {
	cfg := func(kvs ...string) func(t *testing.T, repo, marker string) {
		return func(t *testing.T, repo, marker string) {
			prog := script(t, filepath.Join(t.TempDir(), "prog"), marker)
			for i := 0; i+1 < len(kvs); i += 2 {
				run(t, repo, "config", kvs[i], strings.ReplaceAll(kvs[i+1], "PROG", prog))
			}
		}
	}
	attrs := func(line string, kvs ...string) func(t *testing.T, repo, marker string) {
		return func(t *testing.T, repo, marker string) {
			cfg(kvs...)(t, repo, marker)
			write(t, filepath.Join(repo, ".gitattributes"), line+"\n")
		}
	}
	hs := []hostile{
		{"hooks in .git/hooks", func(t *testing.T, repo, marker string) {
			for _, h := range gitHooks {
				script(t, filepath.Join(repo, ".git", "hooks", h), marker)
			}
		}},
		{"core.hooksPath to a directory of hooks", func(t *testing.T, repo, marker string) {
			dir := t.TempDir()
			for _, h := range gitHooks {
				script(t, filepath.Join(dir, h), marker)
			}
			run(t, repo, "config", "core.hooksPath", dir)
		}},
		{"core.fsmonitor", cfg("core.fsmonitor", "PROG")},
		{"core.fsmonitor through include.path", func(t *testing.T, repo, marker string) {
			prog := script(t, filepath.Join(t.TempDir(), "prog"), marker)
			inc := filepath.Join(t.TempDir(), "included")
			write(t, inc, "[core]\n\tfsmonitor = "+prog+"\n")
			run(t, repo, "config", "include.path", inc)
		}},
		{"core.fsmonitor through includeIf gitdir", func(t *testing.T, repo, marker string) {
			prog := script(t, filepath.Join(t.TempDir(), "prog"), marker)
			inc := filepath.Join(t.TempDir(), "included")
			write(t, inc, "[core]\n\tfsmonitor = "+prog+"\n")
			run(t, repo, "config", "includeIf.gitdir:/.path", inc)
		}},
		{"diff.external", cfg("diff.external", "PROG")},
		{"filter clean and smudge", attrs("*.txt filter=evil", "filter.evil.clean", "PROG", "filter.evil.smudge", "PROG")},
		{"filter process", attrs("*.txt filter=evil", "filter.evil.process", "PROG")},
		{"filter with a dotted name", attrs("*.txt filter=ev.il", "filter.ev.il.clean", "PROG", "filter.ev.il.smudge", "PROG")},
		{"diff driver textconv", attrs("*.txt diff=evil", "diff.evil.textconv", "PROG")},
		{"diff driver command", attrs("*.txt diff=evil", "diff.evil.command", "PROG")},
		{"commit.gpgSign with gpg.program", cfg("commit.gpgSign", "true", "gpg.program", "PROG")},
		{"ssh signing with gpg.ssh.program", cfg("commit.gpgSign", "true", "gpg.format", "ssh", "gpg.ssh.program", "PROG", "user.signingKey", "key")},
		{"GIT_EXTERNAL_DIFF in Atomic's environment", func(t *testing.T, repo, marker string) {
			t.Setenv("GIT_EXTERNAL_DIFF", script(t, filepath.Join(t.TempDir(), "prog"), marker))
		}},
		{"GIT_CONFIG_PARAMETERS in Atomic's environment", func(t *testing.T, repo, marker string) {
			t.Setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='"+script(t, filepath.Join(t.TempDir(), "prog"), marker)+"'")
		}},
		{"GIT_CONFIG_COUNT in Atomic's environment", func(t *testing.T, repo, marker string) {
			t.Setenv("GIT_CONFIG_COUNT", "1")
			t.Setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
			dir := t.TempDir()
			for _, h := range gitHooks {
				script(t, filepath.Join(dir, h), marker)
			}
			t.Setenv("GIT_CONFIG_VALUE_0", dir)
		}},
	}
	return hs
}

// everyOperation runs each git operation of Atomic's own in repo: Create
// (snapshot, worktree add, checkout), Finish (commit), Stat, Open (list,
// prune), Merge, then a second worktree discarded with Remove, and a bare
// Snapshot. It returns the first error.
func everyOperation(ctx context.Context, t *testing.T, repo string) error {
	tr, err := Create(ctx, repo, "hostile-1", "edit")
	if err != nil {
		return err
	}
	write(t, filepath.Join(tr.Path, "a.txt"), "one, by the agent\n")
	write(t, filepath.Join(tr.Path, "new.txt"), "new\n")
	if _, err := tr.Finish(ctx); err != nil {
		return err
	}
	if _, err := tr.Stat(ctx); err != nil {
		return err
	}
	if _, err := Open(ctx, repo); err != nil {
		return err
	}
	if err := tr.Merge(ctx); err != nil {
		return err
	}
	other, err := Create(ctx, repo, "hostile-2", "discard")
	if err != nil {
		return err
	}
	write(t, filepath.Join(other.Path, "b.txt"), "changed\n")
	if _, err := other.Finish(ctx); err != nil {
		return err
	}
	if err := other.Remove(ctx); err != nil {
		return err
	}
	write(t, filepath.Join(repo, "b.txt"), "lead edits again\n")
	_, err = Snapshot(ctx, repo, "snapshot")
	return err
}

func TestNoHookOrConfiguredProgramRunsWhenAtomicCreatesCommitsMergesAndDiscardsWorktrees(t *testing.T) {
	for _, h := range hostiles() {
		t.Run(h.name, func(t *testing.T) {
			ctx := context.Background()
			repo := newRepo(t, map[string]string{"a.txt": "one\n", "b.txt": "bee\n"})
			write(t, filepath.Join(repo, "a.txt"), "one, edited by the lead\n") // uncommitted: the snapshot reads it
			marker := filepath.Join(t.TempDir(), "ran")
			h.plant(t, repo, marker)

			if err := everyOperation(ctx, t, repo); err != nil {
				t.Fatalf("Atomic's git operations failed: %v", err)
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				b, _ := os.ReadFile(marker)
				t.Fatalf("a program planted as %s ran during Atomic's git operations: %s", h.name, b)
			}
			if got := read(t, filepath.Join(repo, "a.txt")); got != "one, by the agent\n" {
				t.Errorf("the merge did not land: a.txt is %q", got)
			}
		})
	}
}

func TestARequiredFilterMakesTheWorktreeFailRatherThanCarryTheFileUnfiltered(t *testing.T) {
	repo := newRepo(t, map[string]string{"secret.txt": "ciphertext\n"})
	marker := filepath.Join(t.TempDir(), "ran")
	prog := script(t, filepath.Join(t.TempDir(), "prog"), marker)
	write(t, filepath.Join(repo, ".gitattributes"), "*.txt filter=crypt\n")
	run(t, repo, "config", "filter.crypt.clean", prog)
	run(t, repo, "config", "filter.crypt.smudge", prog)
	run(t, repo, "config", "filter.crypt.required", "true")
	write(t, filepath.Join(repo, "secret.txt"), "plaintext\n")

	_, err := Create(context.Background(), repo, "general-purpose-1", "edit")
	if err == nil || !strings.Contains(err.Error(), "filter 'crypt' failed") {
		t.Fatalf("Create with a required filter Atomic switched off: %v, want git's filter failure", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the filter ran")
	}
	if out := run(t, repo, "branch", "--list", "atomic/*"); out != "" {
		t.Errorf("a failed Create left branches: %s", out)
	}
}

func TestAtomicsGitGetsNeitherProviderKeysNorInheritedGitVariables(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("ATOMIC_NATS_TOKEN", "tok")
	t.Setenv("GIT_DIR", "/elsewhere")
	t.Setenv("GIT_SSH_COMMAND", "evil")
	t.Setenv("HOME", t.TempDir())
	env := gitEnv([]string{"GIT_INDEX_FILE=/tmp/idx"})
	for _, kv := range env {
		for _, bad := range []string{"ANTHROPIC_API_KEY=", "ATOMIC_NATS_TOKEN=", "GIT_DIR=", "GIT_SSH_COMMAND="} {
			if strings.HasPrefix(kv, bad) {
				t.Errorf("git's environment has %s", kv)
			}
		}
	}
	for _, want := range []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "GIT_INDEX_FILE=/tmp/idx", "HOME="} {
		found := false
		for _, kv := range env {
			found = found || strings.HasPrefix(kv, want)
		}
		if !found {
			t.Errorf("git's environment lacks %s", want)
		}
	}
}

func TestGitRefusesASubcommandItDoesNotKnowHowToHarden(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n"})
	for _, args := range [][]string{{"log", "-p"}, {"merge", "main"}, {"cat-file", "--textconv", "HEAD:a.txt"}, {"worktree", "move", "a", "b"}, {}} {
		if _, err := Git(context.Background(), repo, nil, nil, args...); err == nil || !strings.Contains(err.Error(), "not a subcommand Atomic runs hardened") {
			t.Errorf("git %v: %v", args, err)
		}
	}
}

func TestAWorkTreeMovedByCoreWorktreeIsRefusedSoNoFileOutsideIsSnapshottedOrWritten(t *testing.T) {
	// A home folder kept in git (dotfiles), with a key git does not track.
	home := newRepo(t, map[string]string{".bashrc": "# rc\n"})
	write(t, filepath.Join(home, ".ssh", "id_x"), "PRIVATE KEY\n")
	repo := filepath.Join(home, "project")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "init", "-q", "-b", "main")
	run(t, repo, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "initial")
	run(t, repo, "config", "core.worktree", home) // what a command in the project can do

	_, err := Create(context.Background(), repo, "general-purpose-1", "edit")
	if err == nil || !strings.Contains(err.Error(), "core.worktree") {
		t.Fatalf("Create with the work tree moved to the home folder: %v, want a refusal naming core.worktree", err)
	}
	if _, err := os.Stat(filepath.Join(home, ".atomic", "worktrees", "general-purpose-1", ".ssh", "id_x")); err == nil {
		t.Error("the key outside the project was copied into a worktree")
	}
	if _, err := Open(context.Background(), repo); err == nil {
		t.Error("Open accepted the moved work tree")
	}
}

func TestTopLevelOfALinkedWorktreeIsAccepted(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.txt": "one\n"})
	tr := create(t, repo, "general-purpose-1", "edit")
	top, err := TopLevel(context.Background(), tr.Path)
	if err != nil || top != tr.Path {
		t.Fatalf("TopLevel in a linked worktree: %q, %v", top, err)
	}
}
