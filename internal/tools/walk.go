package tools

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
)

// walkFunc is called for every entry the walk reaches. Returning
// fs.SkipDir for a directory skips it; fs.SkipAll ends the walk quietly.
type walkFunc func(abs string, d fs.DirEntry) error

// walkTree walks the directory start depth first in name order, skipping
// .git directories and whatever the .gitignore files in effect ignore
// (those below start, and those of its ancestors up to the repository root
// or ceiling). Symlinked directories are reported but not followed, so a
// walk cannot loop or leave the tree. Unreadable directories are skipped.
//
// Folders are listed through tr (opened on start), so a folder swapped for
// a symlink during the walk cannot lead it outside the workspace.
func walkTree(ctx context.Context, tr *tree, start, ceiling string, fn walkFunc) error {
	err := walkDir(ctx, tr, start, ancestorIgnores(start, ceiling), fn)
	if errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

func walkDir(ctx context.Context, tr *tree, dir string, stack ignoreStack, fn walkFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := tr.readDir(dir)
	if err != nil {
		return nil // unreadable: nothing to report from it
	}
	if g := readGitignore(dir); g != nil {
		stack = append(slices.Clip(stack), g)
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		abs := filepath.Join(dir, e.Name())
		if stack.ignored(abs, e.IsDir()) {
			continue
		}
		err := fn(abs, e)
		if e.IsDir() && errors.Is(err, fs.SkipDir) {
			continue
		}
		if err != nil {
			return err
		}
		if e.IsDir() {
			if err := walkDir(ctx, tr, abs, stack, fn); err != nil {
				return err
			}
		}
	}
	return nil
}
