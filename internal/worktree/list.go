package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Open returns the Atomic worktrees of the repository holding dir, those
// of earlier runs included, after clearing what a crash can leave: the
// records of worktrees whose directory is gone (git worktree prune) and
// the "initializing" lock of a git worktree add that was killed.
func Open(ctx context.Context, dir string) ([]*Tree, error) {
	top, err := TopLevel(ctx, dir)
	if err != nil {
		return nil, err
	}
	if _, err := git(ctx, top, nil, "worktree", "prune"); err != nil {
		return nil, err
	}
	out, err := git(ctx, top, nil, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var trees []*Tree
	for _, rec := range strings.Split(out, "\n\n") {
		var path, branch string
		locked := false
		for _, l := range strings.Split(rec, "\n") {
			switch {
			case strings.HasPrefix(l, "worktree "):
				path = strings.TrimPrefix(l, "worktree ")
			case strings.HasPrefix(l, "branch refs/heads/"):
				branch = strings.TrimPrefix(l, "branch refs/heads/")
			case l == "locked" || strings.HasPrefix(l, "locked "):
				locked = true
			}
		}
		if !strings.HasPrefix(branch, BranchPrefix) || !within(filepath.Join(top, filepath.FromSlash(Dir)), path) {
			continue
		}
		if locked {
			_, _ = git(ctx, top, nil, "worktree", "unlock", path)
		}
		t := &Tree{Repo: top, Path: path, Root: path, Branch: branch, ID: strings.TrimPrefix(branch, BranchPrefix)}
		t.readMeta(ctx)
		trees = append(trees, t)
	}
	return trees, nil
}

// readMeta fills ID, Base and Task from the worktree's metadata; without
// it the base is where the branch left the lead's HEAD.
func (t *Tree) readMeta(ctx context.Context) {
	if p, err := git(ctx, t.Path, nil, "rev-parse", "--git-path", metaFile); err == nil {
		if !filepath.IsAbs(p) {
			p = filepath.Join(t.Path, p)
		}
		if data, err := os.ReadFile(p); err == nil {
			if f := strings.SplitN(strings.TrimRight(string(data), "\n"), "\n", 3); len(f) == 3 {
				t.ID, t.Base, t.Task = f[0], f[1], f[2]
				return
			}
		}
	}
	if mb, err := git(ctx, t.Repo, nil, "merge-base", "HEAD", t.Branch); err == nil {
		t.Base = mb
	}
}

// Stat is the diff stat of the branch against its base, with the agent's
// uncommitted changes left out.
func (t *Tree) Stat(ctx context.Context) (string, error) {
	return git(ctx, t.Repo, nil, "diff", "--shortstat", t.Base, t.Branch)
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
}

// Files lists, as absolute paths in the lead's tree, the files a Merge
// of the branch would change (a rename as its two paths).
func (t *Tree) Files(ctx context.Context) ([]string, error) {
	out, err := git(ctx, t.Repo, nil, "diff", "--name-only", "-z", "--no-renames", t.Base, t.Branch)
	if err != nil {
		return nil, fmt.Errorf("listing the files of %s: %w", t.Branch, err)
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f = strings.TrimSpace(f); f != "" {
			files = append(files, filepath.Join(t.Repo, filepath.FromSlash(f)))
		}
	}
	return files, nil
}
