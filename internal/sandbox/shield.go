package sandbox

import (
	"os"
	"path/filepath"
)

// A shield keeps commands from changing (or, hidden, reading) one path
// inside a folder they may write. Landlock can only allow, and a folder
// commands may create files in is theirs down to its leaves; the shields
// are enforced by mounts in the session's mount namespace (shield_linux.go)
// and, where Atomic cannot make one, the git guard (guard.go) restores
// what a command changed.
type shield struct {
	path string
	kind shieldKind
}

type shieldKind int

const (
	// pinned: the path stays where it is (it cannot be renamed away and
	// replaced), while what is below it stays writable.
	pinned shieldKind = iota
	// readOnly: the path and everything below it cannot be changed.
	readOnly
	// hidden: the path reads as empty (a file) or as an empty folder,
	// and cannot be changed: a Read deny rule on a file in the workspace.
	hidden
)

// gitShields are the parts of each git repository at the root of a
// writable folder that make git run programs: its hooks and its config
// (core.hooksPath, core.fsmonitor, filters, diff drivers, aliases,
// sshCommand, includes). A command may write the rest of .git (objects,
// refs, the index: git add and git commit work) but not those, because
// the user's own git runs them later, unsandboxed, as the user. The .git
// folder itself is pinned so that it cannot be moved aside and replaced by
// one with hooks. Submodules' repositories under .git/modules get the same.
func gitShields(writable []string) []shield {
	var out []shield
	var add func(gitDir string, depth int)
	add = func(gitDir string, depth int) {
		if fi, err := os.Lstat(gitDir); err != nil || !fi.IsDir() {
			return // no repository, or a linked worktree's .git file (its config is elsewhere)
		}
		hooks := filepath.Join(gitDir, "hooks")
		// Git makes hooks/ at init; one removed since is made again (empty)
		// so that it can be shielded rather than made by a command.
		_ = os.Mkdir(hooks, 0o755)
		out = append(out, shield{gitDir, pinned}, shield{hooks, readOnly})
		for _, f := range []string{"config", "config.worktree"} {
			if fi, err := os.Lstat(filepath.Join(gitDir, f)); err == nil && fi.Mode().IsRegular() {
				out = append(out, shield{filepath.Join(gitDir, f), readOnly})
			}
		}
		if depth > 0 {
			return
		}
		mods, _ := filepath.Glob(filepath.Join(gitDir, "modules", "*"))
		for _, m := range mods {
			add(m, depth+1)
		}
	}
	for _, w := range writable {
		if w != "" {
			add(filepath.Join(filepath.Clean(w), ".git"), 0)
		}
	}
	return out
}

// hiddenShields hides each path of hide that exists inside a writable
// folder (outside them, the Landlock rules already keep it unreadable).
func hiddenShields(hide, writable []string) []shield {
	var out []shield
	for _, h := range hide {
		h = filepath.Clean(h)
		if !isUnder(h, writable) {
			continue
		}
		if _, err := os.Lstat(h); err == nil {
			out = append(out, shield{h, hidden})
		}
	}
	return out
}
