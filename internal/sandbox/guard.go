package sandbox

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// gitGuard is the fallback of the git shields where Atomic cannot make a
// mount namespace (it is not root): it remembers each repository's hooks
// and config as the session found them, and after every command puts back
// what the command changed, so that nothing a command plants there is run
// by the user's own git after the command ends. A git the user runs while
// the command is still running is not covered: only the mount shields are.
type gitGuard struct {
	mu    sync.Mutex
	repos []*guardedRepo
}

// guardedRepo is one repository's .git as the session found it.
type guardedRepo struct {
	dir   string
	ident os.FileInfo // the .git folder itself (moved aside and replaced: another folder)
	files map[string]guardedFile
}

// guardedFile is a file under hooks/ or a config file: its bytes and mode,
// and its status, which tells an unchanged file without reading it (a
// write, chmod or rename sets the change time, which no command can set
// back).
type guardedFile struct {
	data []byte
	mode fs.FileMode
	st   fileStamp
}

// newGitGuard remembers the repositories the shields name.
func newGitGuard(shields []shield) *gitGuard {
	g := &gitGuard{}
	for _, s := range shields {
		if s.kind != pinned {
			continue
		}
		fi, err := os.Stat(s.path)
		if err != nil {
			continue
		}
		r := &guardedRepo{dir: s.path, ident: fi}
		r.files = r.read()
		g.repos = append(g.repos, r)
	}
	return g
}

// read reads the files of a repository the guard keeps: the config files
// and everything under hooks/ (keyed relative to .git).
func (r *guardedRepo) read() map[string]guardedFile { return r.scan(nil) }

// scan lists the guarded files; one whose stamp matches known's is taken
// from known instead of being read again.
func (r *guardedRepo) scan(known map[string]guardedFile) map[string]guardedFile {
	out := map[string]guardedFile{}
	add := func(rel string) {
		p := filepath.Join(r.dir, rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return
		}
		st := stampOf(fi)
		if k, ok := known[rel]; ok && k.st == st && st != (fileStamp{}) {
			out[rel] = k
			return
		}
		if f, ok := readGuarded(p, fi); ok {
			out[rel] = f
		} else {
			out[rel] = guardedFile{mode: fs.ModeIrregular} // a symlink, a pipe: not as found
		}
	}
	for _, name := range []string{"config", "config.worktree"} {
		add(name)
	}
	_ = filepath.WalkDir(filepath.Join(r.dir, "hooks"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(r.dir, p)
		add(rel)
		return nil
	})
	return out
}

// readGuarded reads a regular file (not through a symlink).
func readGuarded(p string, fi fs.FileInfo) (guardedFile, bool) {
	if !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return guardedFile{}, false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return guardedFile{}, false
	}
	return guardedFile{data: data, mode: fi.Mode().Perm(), st: stampOf(fi)}, true
}

// check puts back what changed since the session started and says what it
// put back ("" when nothing changed).
func (g *gitGuard) check() string {
	if g == nil {
		return ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var said []string
	for _, r := range g.repos {
		said = append(said, r.restore()...)
	}
	if len(said) == 0 {
		return ""
	}
	return "atomic: the sandbox put back " + strings.Join(said, ", ") +
		": commands may not change a repository's hooks or git config (the user's own git would run what they name); --sandbox off would allow it"
}

// restore compares the repository with what was remembered and restores
// it, returning the paths it changed or could not restore.
func (r *guardedRepo) restore() []string {
	fi, err := os.Stat(r.dir)
	if err != nil || !os.SameFile(fi, r.ident) {
		// .git was moved aside or removed: make the new one (if any)
		// inert, since the old one's whereabouts are unknown.
		if err == nil {
			if bad := filepath.Join(filepath.Dir(r.dir), ".git.atomic-refused"); os.RemoveAll(bad) == nil {
				_ = os.Rename(r.dir, bad)
			}
		}
		return []string{r.dir + " (it was replaced; the folder put in its place was moved to .git.atomic-refused)"}
	}
	now := r.scan(r.files)
	var said []string
	for name, f := range now {
		want, ok := r.files[name]
		if ok && want.mode == f.mode && bytes.Equal(want.data, f.data) {
			continue
		}
		p := filepath.Join(r.dir, name)
		if err := os.RemoveAll(p); err != nil {
			said = append(said, p+" (could not be removed: "+err.Error()+")")
			continue
		}
		if ok && want.mode != fs.ModeIrregular {
			if err := os.WriteFile(p, want.data, want.mode); err != nil {
				said = append(said, p+" (could not be restored: "+err.Error()+")")
				continue
			}
			_ = os.Chmod(p, want.mode) // WriteFile's mode is masked by the umask
			r.restamp(name)
		}
		said = append(said, p)
	}
	for name, want := range r.files {
		if _, ok := now[name]; ok || want.mode == fs.ModeIrregular {
			continue
		}
		p := filepath.Join(r.dir, name)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, want.data, want.mode); err != nil {
			said = append(said, p+" (could not be restored: "+err.Error()+")")
			continue
		}
		_ = os.Chmod(p, want.mode)
		r.restamp(name)
		said = append(said, p)
	}
	slices.Sort(said)
	return said
}

// restamp records the stamp of a file the guard has just put back.
func (r *guardedRepo) restamp(name string) {
	if fi, err := os.Lstat(filepath.Join(r.dir, name)); err == nil {
		f := r.files[name]
		f.st = stampOf(fi)
		r.files[name] = f
	}
}

// with adds to the guard the repositories of shields it does not keep
// yet, as they are now (a folder added during the session); the ones it
// keeps stay as the session found them.
func (g *gitGuard) with(shields []shield) *gitGuard {
	if g == nil {
		return newGitGuard(shields)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range newGitGuard(shields).repos {
		if !slices.ContainsFunc(g.repos, func(k *guardedRepo) bool { return k.dir == r.dir }) {
			g.repos = append(g.repos, r)
		}
	}
	return g
}
