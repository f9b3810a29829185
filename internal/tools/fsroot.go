package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A path is checked (Resolve: inside the workspace, symlinks followed)
// and then used. Between the two a command can swap a folder or the file
// for a symlink to somewhere else (~/.ssh), so the tools never open a
// checked path by name: they open it through the allowed root that holds
// it, with os.Root, which refuses to leave that root whatever the path
// has become (openat2 RESOLVE_BENEATH on Linux). The check and the use
// are then one step as far as leaving the workspace goes.

// target is a file the model named, checked: abs is the path as the
// model and the user know it, real its symlink-free form at the check,
// which the tools open below root (the real path of the allowed root
// holding it) as rel.
type target struct {
	abs, real string
	root, rel string
}

// target resolves and checks path, and finds the root to open it in.
func (w Workspace) target(path string) (target, error) {
	abs, real, err := w.resolve(path)
	if err != nil {
		return target{}, err
	}
	root, rel, err := w.holder(real)
	if err != nil {
		return target{}, err
	}
	return target{abs: abs, real: real, root: root, rel: rel}, nil
}

// outsideTarget is the target of an absolute path not confined to any
// workspace (EditDiff's previews): it is opened below the file system's
// root.
func outsideTarget(abs string) (target, error) {
	abs = filepath.Clean(abs)
	real, err := realPath(abs, 0)
	if err != nil {
		return target{}, fmt.Errorf("resolving path %s: %w", abs, err)
	}
	root, rel := fsRoot(real)
	return target{abs: abs, real: real, root: root, rel: rel}, nil
}

// holder returns the real path of the outermost allowed root holding the
// symlink-free path real, and real relative to it. The outermost, so
// that an extra root inside the workspace, which a command could swap
// for a symlink, is never the one opened.
func (w Workspace) holder(real string) (root, rel string, err error) {
	if w.AllowOutside {
		root, rel := fsRoot(real)
		return root, rel, nil
	}
	top, err := w.root()
	if err != nil {
		return "", "", err
	}
	for _, r := range append([]string{top}, w.Extra()...) {
		a, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		rr, err := realPath(a, 0)
		if err != nil || !within(rr, real) {
			continue
		}
		if root == "" || len(rr) < len(root) {
			root = rr
		}
	}
	if root == "" {
		return "", "", fmt.Errorf("path %s is outside the workspace %s; %s", real, w.describeRoots(top), outsideHint)
	}
	rel, err = filepath.Rel(root, real)
	if err != nil {
		return "", "", fmt.Errorf("path %s: %w", real, err)
	}
	return root, rel, nil
}

// fsRoot splits the absolute path p into its file system root ("/",
// "C:\") and the rest.
func fsRoot(p string) (root, rel string) {
	vol := filepath.VolumeName(p)
	root = vol + string(filepath.Separator)
	rel = strings.TrimLeft(p[len(vol):], string(filepath.Separator))
	if rel == "" {
		rel = "."
	}
	return root, rel
}

// openRoot opens t's root.
func (t target) openRoot() (*os.Root, error) {
	r, err := os.OpenRoot(t.root)
	if err != nil {
		return nil, fmt.Errorf("opening the workspace root %s: %w", t.root, err)
	}
	return r, nil
}

// stat stats the file below its root (following symlinks that stay in it).
func (t target) stat() (fs.FileInfo, error) {
	r, err := t.openRoot()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Stat(t.rel)
}

// open opens the file for reading below its root. It does not block on a
// FIFO swapped in after a check; the caller checks what it got.
func (t target) open() (*os.File, error) {
	r, err := t.openRoot()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(t.rel, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", t.abs, err)
	}
	return f, nil
}

// readRegular reads the whole file if it is a regular file.
func (t target) readRegular() ([]byte, fs.FileInfo, error) {
	f, err := t.open()
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", t.abs, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file (%s)", t.abs, fi.Mode().Type())
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", t.abs, err)
	}
	return data, fi, nil
}

// write writes data to the file below its root, creating missing parent
// folders there. It writes in place rather than renaming a temporary
// file over it, so hard links, symlinks and ownership of an existing file
// survive.
func (t target) write(data []byte, mode fs.FileMode) error {
	r, err := t.openRoot()
	if err != nil {
		return err
	}
	defer r.Close()
	if dir := filepath.Dir(t.rel); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating the directory for %s: %w", t.abs, err)
		}
	}
	f, err := r.OpenFile(t.rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|openNonblock, mode)
	if err != nil {
		return fmt.Errorf("writing %s: %w", t.abs, err)
	}
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("%s is not a regular file (%s); only files are written", t.abs, fi.Mode().Type())
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", t.abs, err)
	}
	return nil
}

// clientRead reads t through w.Files; ok is false when there is none or
// it does not have the file (the caller reads the disk, which says what
// is wrong). The editor is sent the real path checked: it opens the file
// by name itself, beyond Atomic's reach (see the README's Sandbox
// section).
func (w Workspace) clientRead(ctx context.Context, t target) (text string, ok bool) {
	if w.Files == nil {
		return "", false
	}
	text, err := w.Files.ReadTextFile(ctx, t.real)
	return text, err == nil
}

// writeText writes data to t through w.Files when set (the editor then
// holds the change, saved or not), else to the disk.
func (w Workspace) writeText(ctx context.Context, t target, data []byte, mode fs.FileMode) error {
	if w.Checkpoint != nil {
		w.Checkpoint(t.real)
	}
	if w.Files != nil {
		err := w.Files.WriteTextFile(ctx, t.real, string(data))
		if !errors.Is(err, ErrNoFiles) {
			if err != nil {
				return fmt.Errorf("writing %s through the editor: %w", t.abs, err)
			}
			return nil
		}
	}
	return t.write(data, mode)
}

// tree reads a directory tree through the allowed root holding it; paths
// are given as walked from the tree's top (lex, as the model named it).
type tree struct {
	ws   Workspace
	root *os.Root
	dir  string // the root's real path
	lex  string // the top as walked
	rel  string // the top below root
}

// openTree opens the checked directory t for walking; close it after.
func (w Workspace) openTree(t target) (*tree, error) {
	r, err := t.openRoot()
	if err != nil {
		return nil, err
	}
	return &tree{ws: w, root: r, dir: t.root, lex: t.abs, rel: t.rel}, nil
}

func (tr *tree) close() { tr.root.Close() }

// name is abs, a path below the top as walked, relative to the root.
func (tr *tree) name(abs string) string {
	r, err := filepath.Rel(tr.lex, abs)
	if err != nil {
		return abs // not below: the root refuses it
	}
	return filepath.Join(tr.rel, r)
}

// readDir lists the folder abs, sorted by name.
func (tr *tree) readDir(abs string) ([]fs.DirEntry, error) {
	f, err := tr.root.Open(tr.name(abs))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// file returns the target of a walked entry that is a regular file, or a
// symlink to one inside the workspace, and its info; ok is false for
// anything else.
func (tr *tree) file(abs string, d fs.DirEntry) (t target, fi fs.FileInfo, ok bool) {
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		var err error
		if t, err = tr.ws.target(abs); err != nil {
			return target{}, nil, false
		}
		if fi, err = t.stat(); err != nil {
			return target{}, nil, false
		}
	case d.Type().IsRegular():
		name := tr.name(abs)
		t = target{abs: abs, real: filepath.Join(tr.dir, name), root: tr.dir, rel: name}
		var err error
		if fi, err = tr.root.Stat(name); err != nil {
			return target{}, nil, false
		}
	default:
		return target{}, nil, false
	}
	return t, fi, fi.Mode().IsRegular()
}
