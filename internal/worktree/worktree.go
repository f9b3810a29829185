// Package worktree gives an isolated sub-agent its own git worktree: a
// checkout of the lead's HEAD plus its uncommitted changes, on a branch of
// its own (atomic/<agent-id>) under .atomic/worktrees/ of the repository.
// When the agent ends its changes are committed there (Finish); the lead
// applies them onto its own tree (Merge) or throws them away (Discard). It
// drives the git CLI, the tool the user's repository is already kept with.
package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dir is where worktrees live, relative to the repository's top level.
const Dir = ".atomic/worktrees"

// BranchPrefix starts every worktree branch.
const BranchPrefix = "atomic/"

// metaFile, in the worktree's private git directory, keeps its base commit
// and task, so leftovers of an earlier run can still be listed and merged;
// it goes when the worktree is removed.
const metaFile = "atomic-worktree"

// parallelCheckout has git write the checkout's files with one worker per
// core: creating files is most of a worktree's cost.
func parallelCheckout() []string {
	return []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=checkout.workers", "GIT_CONFIG_VALUE_0=0"}
}

// Tree is one agent's worktree.
type Tree struct {
	// ID is the agent id the worktree was made for.
	ID string
	// Repo is the top level of the lead's repository.
	Repo string
	// Path is the worktree's top level.
	Path string
	// Root is where the agent works: Path, or the directory in it that
	// matches the lead's workspace when that is below the top level.
	Root   string
	Branch string
	// Base is the commit the branch starts from: HEAD, or a commit of the
	// lead's uncommitted changes on top of it.
	Base string
	// Task is the task description, for the commit message.
	Task string
}

// Outcome is what Finish did.
type Outcome struct {
	// Changed is false when the agent left the tree as it found it; the
	// worktree and its branch were then removed.
	Changed bool
	// Commit is the branch's head after Finish (empty when unchanged).
	Commit string
	// Stat is git's diff stat of the branch against Base.
	Stat string
}

// ConflictError is a merge that does not apply: the files that conflict,
// and git's own words. Nothing was changed.
type ConflictError struct {
	Branch string
	Files  []string
	Detail string
}

func (e *ConflictError) Error() string {
	files := "the lead's tree"
	if len(e.Files) > 0 {
		files = strings.Join(e.Files, ", ")
	}
	return fmt.Sprintf("branch %s does not apply cleanly: conflict in %s; nothing was changed", e.Branch, files)
}

// git runs git in dir and returns its trimmed standard output; the error
// carries git's standard error.
func git(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	return gitIn(ctx, dir, env, nil, args...)
}

func gitIn(ctx context.Context, dir string, env []string, stdin []byte, args ...string) (string, error) {
	out, err := Git(ctx, dir, env, stdin, args...)
	return strings.TrimRight(string(out), "\n"), err
}

// TopLevel returns the top level of the repository holding dir, or an
// error saying that dir is not in one.
func TopLevel(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, nil, "rev-parse", "--show-toplevel", "--absolute-git-dir")
	if err != nil {
		return "", fmt.Errorf("worktree isolation needs a git repository: %s is not in one (%w)", dir, err)
	}
	top, gitDir, _ := strings.Cut(out, "\n")
	if !ownGitDir(top, gitDir) {
		return "", fmt.Errorf("the work tree of the repository holding %s is set to %s, which is not the folder of its .git (core.worktree in %s/config?): Atomic's git works only in the repository's own folder", dir, top, gitDir)
	}
	return top, nil
}

// ownGitDir reports whether top/.git is gitDir (a directory, or a file
// pointing to it as in a linked worktree). A work tree moved elsewhere by
// core.worktree, which a command can set in .git/config, fails: Atomic's
// snapshot would commit files of that folder (a home directory's keys)
// and a merge would write there, outside the workspace.
func ownGitDir(top, gitDir string) bool {
	dotGit := filepath.Join(top, ".git")
	fi, err := os.Lstat(dotGit)
	if err != nil || gitDir == "" {
		return false
	}
	want, err := filepath.EvalSymlinks(gitDir)
	if err != nil {
		return false
	}
	if fi.IsDir() {
		got, err := filepath.EvalSymlinks(dotGit)
		return err == nil && got == want
	}
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return false
	}
	p, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(top, p)
	}
	got, err := filepath.EvalSymlinks(p)
	return err == nil && got == want
}

// identity returns environment settings for a commit: none when the user
// has an identity configured, else Atomic's own.
func identity(ctx context.Context, dir string) []string {
	if name, err := git(ctx, dir, nil, "config", "user.name"); err == nil && name != "" {
		if mail, err := git(ctx, dir, nil, "config", "user.email"); err == nil && mail != "" {
			return nil
		}
	}
	return []string{"GIT_AUTHOR_NAME=Atomic", "GIT_AUTHOR_EMAIL=atomic@localhost",
		"GIT_COMMITTER_NAME=Atomic", "GIT_COMMITTER_EMAIL=atomic@localhost"}
}

// Create makes agentID's worktree and fills it: Add, then Checkout.
func Create(ctx context.Context, workspace, agentID, task string) (*Tree, error) {
	t, err := Add(ctx, workspace, agentID, task)
	if err != nil {
		return nil, err
	}
	if err := t.Checkout(ctx); err != nil {
		t.cleanup()
		return nil, err
	}
	return t, nil
}

// Add makes agentID's worktree from the repository holding workspace, not
// yet filled (Checkout does that): a new branch atomic/<agentID>
// (atomic/<agentID>-<n> when a leftover of an earlier run holds that
// name) at the lead's HEAD plus its uncommitted changes, untracked files
// included and ignored ones not, registered under .atomic/worktrees/. The
// lead's tree, index and stash are not touched. A failed or cancelled Add
// leaves nothing behind.
//
// Writing the files is most of a worktree's cost (about 0.5 ms a file on
// a slow disk), so Add leaves it to Checkout, which an isolated agent runs
// while its first model request is under way.
func Add(ctx context.Context, workspace, agentID, task string) (*Tree, error) {
	if agentID == "" || strings.ContainsAny(agentID, " /\\:~^?*[") {
		return nil, fmt.Errorf("worktree: agent id %q cannot name a branch", agentID)
	}
	top, err := TopLevel(ctx, workspace)
	if err != nil {
		return nil, err
	}
	if err := exclude(ctx, top); err != nil {
		return nil, err
	}
	base, err := Snapshot(ctx, top, "atomic: uncommitted changes of the lead, the base of "+agentID)
	if err != nil {
		return nil, err
	}
	name, err := freeName(ctx, top, agentID)
	if err != nil {
		return nil, err
	}
	t := &Tree{ID: agentID, Repo: top, Path: filepath.Join(top, filepath.FromSlash(Dir), name),
		Branch: BranchPrefix + name, Base: base, Task: task}
	t.Root = t.Path
	if ws, err := filepath.EvalSymlinks(workspace); err == nil {
		if rel, err := filepath.Rel(top, ws); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			t.Root = filepath.Join(t.Path, rel)
		}
	}
	if _, err := git(ctx, top, nil, "worktree", "add", "--quiet", "--no-checkout", "-b", t.Branch, t.Path, base); err != nil {
		t.cleanup()
		return nil, fmt.Errorf("creating worktree for %s: %w", agentID, err)
	}
	if err := t.writeMeta(ctx); err != nil {
		t.cleanup()
		return nil, err
	}
	return t, nil
}

// Checkout writes the files of the worktree's base into it (and its
// index). Cancelled part way, the tree is incomplete: Remove it.
func (t *Tree) Checkout(ctx context.Context) error {
	if _, err := git(ctx, t.Path, parallelCheckout(), "reset", "--hard", "--quiet", t.Base); err != nil {
		return fmt.Errorf("filling the worktree of %s: %w", t.ID, err)
	}
	return nil
}

// cleanup removes what a failed Create may have made, whatever ctx did.
func (t *Tree) cleanup() {
	ctx := context.Background()
	_, _ = git(ctx, t.Repo, nil, "worktree", "unlock", t.Path)
	_, _ = git(ctx, t.Repo, nil, "worktree", "remove", "--force", "--force", t.Path)
	_ = os.RemoveAll(t.Path)
	_, _ = git(ctx, t.Repo, nil, "worktree", "prune")
	_, _ = git(ctx, t.Repo, nil, "branch", "-D", t.Branch)
}

// exclude keeps .atomic/worktrees/ out of the lead's git status through
// the repository's own info/exclude, leaving the user's .gitignore alone.
func exclude(ctx context.Context, top string) error {
	p, err := git(ctx, top, nil, "rev-parse", "--git-path", "info/exclude")
	if err != nil {
		return err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(top, p)
	}
	line := "/" + Dir + "/"
	data, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == line {
			return nil
		}
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	data = append(data, "# Atomic's sub-agent worktrees\n"+line+"\n"...)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}

// Snapshot returns HEAD of the repository at top, or when the work tree
// differs from it a commit (with message) of the work tree as it is
// (tracked changes and untracked files, not ignored ones) on top of HEAD.
// It goes through a temporary copy of the index, so the user's index is
// not touched; the commit is on no branch.
func Snapshot(ctx context.Context, top, message string) (string, error) {
	head, err := git(ctx, top, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("worktree isolation needs a commit to start from: the repository %s has none yet", top)
	}
	idx, err := os.CreateTemp("", "atomic-index-*")
	if err != nil {
		return "", fmt.Errorf("snapshot of uncommitted changes: %w", err)
	}
	idx.Close()
	defer os.Remove(idx.Name())
	// Starting from a copy of the lead's index keeps git's stat cache, so
	// only changed files are read again.
	if live, err := git(ctx, top, nil, "rev-parse", "--git-path", "index"); err == nil {
		if !filepath.IsAbs(live) {
			live = filepath.Join(top, live)
		}
		if data, err := os.ReadFile(live); err == nil {
			_ = os.WriteFile(idx.Name(), data, 0o600)
		} else {
			_ = os.Remove(idx.Name()) // no index yet: git starts an empty one
		}
	}
	env := []string{"GIT_INDEX_FILE=" + idx.Name()}
	if _, err := git(ctx, top, env, "add", "--all", "--", "."); err != nil {
		return "", fmt.Errorf("snapshot of uncommitted changes: %w", err)
	}
	tree, err := git(ctx, top, env, "write-tree")
	if err != nil {
		return "", fmt.Errorf("snapshot of uncommitted changes: %w", err)
	}
	headTree, err := git(ctx, top, nil, "rev-parse", "HEAD^{tree}")
	if err != nil {
		return "", err
	}
	if tree == headTree {
		return head, nil
	}
	commit, err := git(ctx, top, identity(ctx, top), "commit-tree", tree, "-p", head, "-m", message)
	if err != nil {
		return "", fmt.Errorf("snapshot of uncommitted changes: %w", err)
	}
	return commit, nil
}

// freeName returns agentID, or agentID-<n>, whichever names neither a
// branch nor a directory yet (ids restart with every session).
func freeName(ctx context.Context, top, agentID string) (string, error) {
	for n := 1; n < 1000; n++ {
		name := agentID
		if n > 1 {
			name = fmt.Sprintf("%s-%d", agentID, n)
		}
		if _, err := git(ctx, top, nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+BranchPrefix+name); err == nil {
			continue
		}
		if _, err := os.Lstat(filepath.Join(top, filepath.FromSlash(Dir), name)); err == nil {
			continue
		}
		return name, nil
	}
	return "", fmt.Errorf("worktree: no free branch name for %s under %s", agentID, BranchPrefix)
}

// writeMeta records the base and task in the worktree's git directory.
func (t *Tree) writeMeta(ctx context.Context) error {
	p, err := git(ctx, t.Path, nil, "rev-parse", "--git-path", metaFile)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.Path, p)
	}
	data := t.ID + "\n" + t.Base + "\n" + strings.ReplaceAll(t.Task, "\n", " ") + "\n"
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		return fmt.Errorf("writing worktree metadata: %w", err)
	}
	return nil
}

// Finish commits everything the agent changed in its worktree on its
// branch ("atomic: <id>: <task>"; the user's git identity, else Atomic's;
// no hooks run) and returns the diff stat against the base. A tree left
// as it was found is removed with its branch. It runs to the end even when
// ctx is cancelled (an interrupted agent's work is kept) unless ctx has a
// deadline that passes.
func (t *Tree) Finish(ctx context.Context) (Outcome, error) {
	ctx = context.WithoutCancel(ctx)
	if _, err := git(ctx, t.Path, nil, "add", "--all"); err != nil {
		return Outcome{}, fmt.Errorf("committing %s's changes: %w", t.ID, err)
	}
	if _, err := git(ctx, t.Path, nil, "diff", "--cached", "--quiet"); err != nil {
		msg := "atomic: " + t.ID + ": " + t.Task
		if strings.TrimSpace(t.Task) == "" {
			msg = "atomic: " + t.ID
		}
		if _, err := git(ctx, t.Path, identity(ctx, t.Path), "commit", "--quiet", "--no-verify", "-m", msg); err != nil {
			return Outcome{}, fmt.Errorf("committing %s's changes: %w", t.ID, err)
		}
	}
	head, err := git(ctx, t.Path, nil, "rev-parse", "HEAD")
	if err != nil {
		return Outcome{}, err
	}
	if head == t.Base {
		return Outcome{}, t.Remove(ctx)
	}
	stat, err := git(ctx, t.Path, nil, "diff", "--stat", t.Base, head)
	if err != nil {
		return Outcome{}, err
	}
	if strings.TrimSpace(stat) == "" { // commits that change nothing in sum
		return Outcome{}, t.Remove(ctx)
	}
	return Outcome{Changed: true, Commit: head, Stat: stat}, nil
}

// Remove deletes the worktree and its branch (Discard, or after a merge).
func (t *Tree) Remove(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	_, _ = git(ctx, t.Repo, nil, "worktree", "unlock", t.Path)
	if _, err := git(ctx, t.Repo, nil, "worktree", "remove", "--force", "--force", t.Path); err != nil {
		if _, serr := os.Stat(t.Path); serr == nil {
			return fmt.Errorf("removing worktree %s: %w", t.Path, err)
		}
		_, _ = git(ctx, t.Repo, nil, "worktree", "prune")
	}
	if _, err := git(ctx, t.Repo, nil, "branch", "-D", t.Branch); err != nil {
		return fmt.Errorf("deleting branch %s: %w", t.Branch, err)
	}
	return nil
}

// Merge applies the branch's changes since its base onto the lead's work
// tree (not its index: they show as uncommitted changes to review and
// commit), all or nothing: when any file does not apply it returns a
// *ConflictError naming the files and the lead's tree and index are as
// they were. After a clean merge the worktree and branch are removed.
func (t *Tree) Merge(ctx context.Context) error {
	patch, err := git(ctx, t.Repo, nil, "diff", "--binary", "--full-index", t.Base, t.Branch)
	if err != nil {
		return fmt.Errorf("merging %s: %w", t.Branch, err)
	}
	if strings.TrimSpace(patch) == "" {
		return t.Remove(ctx)
	}
	data := []byte(patch + "\n")
	// git apply is atomic (a patch that fails anywhere changes nothing);
	// the check first gets the whole list of conflicting files.
	if _, err := gitIn(ctx, t.Repo, nil, data, "apply", "--check", "--verbose", "--whitespace=nowarn", "-"); err != nil {
		return &ConflictError{Branch: t.Branch, Files: conflictFiles(err.Error()), Detail: err.Error()}
	}
	if _, err := gitIn(ctx, t.Repo, nil, data, "apply", "--whitespace=nowarn", "-"); err != nil {
		return &ConflictError{Branch: t.Branch, Files: conflictFiles(err.Error()), Detail: err.Error()}
	}
	return t.Remove(ctx)
}

// conflictFiles picks the file names out of git apply's errors
// ("error: patch failed: a.go:3", "error: a.go: patch does not apply",
// "error: a.go: already exists in working directory").
func conflictFiles(msg string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if i := strings.Index(l, "error: "); i >= 0 {
			l = l[i+len("error: "):]
		} else {
			continue
		}
		if rest, ok := strings.CutPrefix(l, "patch failed: "); ok {
			if j := strings.LastIndexByte(rest, ':'); j > 0 {
				add(rest[:j])
			}
			continue
		}
		if j := strings.Index(l, ": "); j > 0 {
			add(l[:j])
		}
	}
	return out
}

// Apply writes patch (git diff --binary, as a remote worker returns an
// agent's changes) onto the filled worktree's files, all or nothing; the
// changes are committed by Finish like an agent's own.
func (t *Tree) Apply(ctx context.Context, patch []byte) error {
	if _, err := gitIn(ctx, t.Path, nil, patch, "apply", "--binary", "--whitespace=nowarn", "-"); err != nil {
		return fmt.Errorf("applying the changes of %s: %w", t.ID, err)
	}
	return nil
}
