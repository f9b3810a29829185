package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-agent/atomic/internal/sandbox"
)

// Workspace is the part of the file system the file tools may touch: Root
// and ExtraRoots, unless AllowOutside is set.
type Workspace struct {
	// Root is the directory relative paths resolve against and where bash
	// runs.
	Root string
	// AllowOutside lets tools reach paths outside every root.
	AllowOutside bool
	// ExtraRoots are further directories the tools may use.
	ExtraRoots []string
	// Added, when set, are the folders added during the session
	// (/add-dir), shared by every copy of the Workspace.
	Added *Roots
	// Sandbox confines the commands bash runs; nil runs them unconfined.
	Sandbox *sandbox.Sandbox
	// Files, when set, is where read, write and edit read and write text
	// (an editor's buffers); nil: the disk.
	Files Files
	// Hidden, when set, reports whether the user's rules forbid reading
	// the file at an absolute path (a Claude Code Read deny rule): grep
	// and glob skip such files, so a search of the whole workspace never
	// returns them. The permission gate refuses calls naming them.
	Hidden func(abs string) bool
	// Secrets are the user's secret stores (sandbox.DefaultSecrets): the
	// file tools neither use a path in one nor return its files from a
	// search, as the sandbox keeps them from commands, wherever the
	// workspace is ($HOME itself included).
	Secrets []string
	// Env are NAME=value variables added to the environment of the
	// commands bash runs (a project's Claude Code settings env), after
	// Atomic's own, so they win; provider keys are dropped as from
	// Atomic's own environment.
	Env []string
	// Shells, when set, runs bash's run_in_background commands (and
	// bash_output and kill_shell read and stop them); nil: bash runs
	// every command in the foreground.
	Shells *Shells
	// Checkpoint, when set, is told the real path of each file write,
	// edit and multi_edit are about to change, before they change it
	// (a /rewind snapshot); nil in a worktree, whose changes reach the
	// lead's tree by a merge.
	Checkpoint func(real string)
}

// hidden reports whether Hidden forbids abs or a secret store holds it.
func (w Workspace) hidden(abs string) bool {
	return w.secret(abs) != "" || w.Hidden != nil && w.Hidden(abs)
}

// secret is the secret store holding p ("" for none); no allocation: it
// is asked of every file grep and glob walk.
func (w Workspace) secret(p string) string {
	for _, s := range w.Secrets {
		if p == s || len(p) > len(s) && p[len(s)] == filepath.Separator && strings.HasPrefix(p, s) {
			return s
		}
	}
	return ""
}

// maxSymlinkHops bounds symlink resolution, as the kernel does (ELOOP).
const maxSymlinkHops = 40

// Resolve turns a path given by the model into a clean absolute path.
// Relative paths resolve against Root. A path that lands outside Root and
// ExtraRoots, lexically or by following symlinks (including a dangling
// final symlink a write would follow), is refused unless AllowOutside.
// The returned path is the lexical one (symlinks kept), the form the model
// and the user recognise.
func (w Workspace) Resolve(path string) (string, error) {
	abs, _, err := w.resolve(path)
	return abs, err
}

// resolve returns the lexical absolute path and its symlink-free real path.
func (w Workspace) resolve(path string) (abs, real string, err error) {
	if strings.TrimSpace(path) == "" {
		return "", "", errors.New("path is empty")
	}
	if strings.ContainsRune(path, 0) {
		return "", "", fmt.Errorf("path %q contains a NUL byte", path)
	}
	root, err := w.root()
	if err != nil {
		return "", "", err
	}
	abs = path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	}
	abs = filepath.Clean(abs)
	real, err = realPath(abs, 0)
	if err != nil {
		return "", "", fmt.Errorf("resolving path %s: %w", abs, err)
	}
	for _, p := range []string{abs, real} {
		if store := w.secret(p); store != "" {
			return "", "", fmt.Errorf("path %s is in %s, a secret store: the file tools do not use it, as commands cannot", abs, store)
		}
	}
	if w.AllowOutside {
		return abs, real, nil
	}
	roots := w.roots(root)
	if !w.inside(real, roots) {
		if real != abs && w.inside(abs, roots) {
			return "", "", fmt.Errorf("path %s resolves through a symlink to %s, which is outside the workspace %s; %s",
				abs, real, w.describeRoots(root), outsideHint)
		}
		return "", "", fmt.Errorf("path %s is outside the workspace %s; %s", abs, w.describeRoots(root), outsideHint)
	}
	return abs, real, nil
}

const outsideHint = "only files inside the workspace can be used"

// root returns the absolute, clean Root.
func (w Workspace) root() (string, error) {
	if w.Root == "" {
		return "", errors.New("workspace has no root directory")
	}
	root, err := filepath.Abs(w.Root)
	if err != nil {
		return "", fmt.Errorf("workspace root %s: %w", w.Root, err)
	}
	return root, nil
}

// roots returns every allowed root, lexical and symlink-resolved.
func (w Workspace) roots(root string) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if a, err := filepath.Abs(p); err == nil {
			out = append(out, a)
			if r, err := realPath(a, 0); err == nil && r != a {
				out = append(out, r)
			}
		}
	}
	add(root)
	for _, r := range w.Extra() {
		add(r)
	}
	return out
}

func (w Workspace) inside(p string, roots []string) bool {
	for _, r := range roots {
		if within(r, p) {
			return true
		}
	}
	return false
}

func (w Workspace) describeRoots(root string) string {
	extra := w.Extra()
	if len(extra) == 0 {
		return root
	}
	return root + " (or " + strings.Join(extra, ", ") + ")"
}

// within reports whether p is root or below it; both must be clean and
// absolute.
func within(root, p string) bool {
	if p == root {
		return true
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// display returns abs relative to the workspace root when it lies inside,
// for compact tool output and permission subjects; otherwise abs itself.
func (w Workspace) display(abs string) string {
	root, err := w.root()
	if err != nil || !within(root, abs) {
		return abs
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

// RealPath resolves every symlink in the absolute path p, as the file tools
// do: a path that does not exist yet resolves through its parent, and a
// dangling symlink is followed to where it points. Permission rules match
// paths the same way, so a symlink cannot lead a write around a rule.
func RealPath(p string) (string, error) { return realPath(filepath.Clean(p), 0) }

// realPath resolves every symlink in the clean absolute path p. Components
// that do not exist yet are kept as they are, but a dangling symlink is
// followed to where it points, since writing through it would land there.
func realPath(p string, hops int) (string, error) {
	if hops > maxSymlinkHops {
		return "", errors.New("too many levels of symbolic links")
	}
	r, err := filepath.EvalSymlinks(p)
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	if dir == p { // the file-system root cannot be missing
		return p, nil
	}
	rdir, err := realPath(dir, hops)
	if err != nil {
		return "", err
	}
	joined := filepath.Join(rdir, base)
	fi, err := os.Lstat(joined)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return joined, nil
	}
	target, err := os.Readlink(joined)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(rdir, target)
	}
	return realPath(filepath.Clean(target), hops+1)
}

// where names a searched directory in messages: "the workspace root" or
// its display path.
func (w Workspace) where(abs string) string {
	if d := w.display(abs); d != "." {
		return d
	}
	return "the workspace root"
}

// Files is file access other than the disk's: an editor's buffers, through
// the Agent Client Protocol's fs methods. The file tools use it, when set,
// for the text they read and write; a method answering ErrNoFiles sends
// them to the disk.
type Files interface {
	ReadTextFile(ctx context.Context, path string) (string, error)
	WriteTextFile(ctx context.Context, path, content string) error
}

// ErrNoFiles is a Files method's answer for what it does not offer.
var ErrNoFiles = errors.New("not offered by the client")
