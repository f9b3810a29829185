package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// walkFunc is called for every entry the walk reaches. Returning
// fs.SkipDir for a directory skips it; fs.SkipAll ends the walk quietly.
type walkFunc func(abs string, d fs.DirEntry) error

// walkTree walks the directory start depth first in name order, skipping
// .git directories and whatever the .gitignore files in effect ignore
// (those below start, and those of its ancestors up to the repository root
// or ceiling). Symlinked directories are reported but not followed, so a
// walk cannot loop or leave the tree. A folder below start that cannot
// be read is skipped and named in the returned unread; start itself
// unreadable is an error, so a search never reports "nothing found" for a
// folder it could not look into.
//
// Folders are listed through tr (opened on start), so a folder swapped for
// a symlink during the walk cannot lead it outside the workspace.
func walkTree(ctx context.Context, tr *tree, start, ceiling string, fn walkFunc) (unread, error) {
	w := walker{tr: tr, fn: fn, start: start}
	err := w.dir(ctx, start, ancestorIgnores(start, ceiling))
	if errors.Is(err, fs.SkipAll) {
		err = nil
	}
	return w.unread, err
}

// unread counts the folders a walk could not read, naming the first few.
type unread struct {
	n     int
	names []string
}

// maxUnreadNames bounds the folders named in a result: the count says the rest.
const maxUnreadNames = 3

func (u *unread) add(abs string, err error) {
	u.n++
	if len(u.names) < maxUnreadNames {
		reason := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			reason = pe.Err.Error()
		}
		u.names = append(u.names, fmt.Sprintf("%s (%s)", abs, reason))
	}
}

// note is the sentence a search result ends with when folders were skipped.
func (u unread) note() string {
	if u.n == 0 {
		return ""
	}
	s := fmt.Sprintf(" %d folder(s) could not be read and were not searched: %s", u.n, strings.Join(u.names, ", "))
	if u.n > len(u.names) {
		s += fmt.Sprintf(" and %d more", u.n-len(u.names))
	}
	return s + "."
}

type walker struct {
	tr     *tree
	fn     walkFunc
	start  string
	unread unread
}

func (w *walker) dir(ctx context.Context, dir string, stack ignoreStack) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	tr, fn := w.tr, w.fn
	entries, err := tr.readDir(dir)
	if err != nil && dir == w.start {
		return fmt.Errorf("cannot read the folder %s: %w", dir, err)
	}
	if err != nil {
		w.unread.add(dir, err)
		return nil
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
			if err := w.dir(ctx, abs, stack); err != nil {
				return err
			}
		}
	}
	return nil
}
