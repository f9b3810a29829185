package tools

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
)

// ListFiles lists up to limit files of the workspace root, relative to it
// with slashes, as the search tools walk it: .gitignore respected, .git
// and hidden paths (Read deny rules) skipped, symlinks not followed. The
// chat's @ mentions complete from it.
func ListFiles(ctx context.Context, ws Workspace, limit int) ([]string, error) {
	root, err := ws.root()
	if err != nil {
		return nil, err
	}
	tg, err := ws.target(root)
	if err != nil {
		return nil, err
	}
	tr, err := ws.openTree(tg)
	if err != nil {
		return nil, err
	}
	defer tr.close()
	var out []string
	_, err = walkTree(ctx, tr, tg.abs, root, func(abs string, d fs.DirEntry) error {
		if ws.hidden(abs) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(tg.abs, abs)
		if err != nil {
			return nil
		}
		out = append(out, filepath.ToSlash(rel))
		if len(out) >= limit {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("listing %s: %w", root, err)
	}
	return out, nil
}
