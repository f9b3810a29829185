// Package dotdirs finds the folders a run reads Claude Code's and
// Atomic's files from (.claude/agents, .claude/commands, .claude/skills,
// .atomic/…), the way Claude Code finds them: from every folder between
// the working directory and the repository root, and the user's.
package dotdirs

import (
	"os"
	"path/filepath"
)

// Scopes of a folder.
const (
	UserScope    = "user"
	ProjectScope = "project"
)

// Places are where a run looks.
type Places struct {
	// Dir is the working directory.
	Dir string
	// Home is the user's home (~/.claude/KIND); empty: none.
	Home string
	// ConfigDir is Atomic's user config folder (ConfigDir/KIND); empty:
	// none.
	ConfigDir string
}

// Dir is one folder and the scope of what it holds.
type Dir struct {
	Path  string
	Scope string
}

// Find lists the folders of one kind ("agents", "commands", "skills"),
// lowest precedence first, so that a later definition of a name replaces
// an earlier one: ~/.claude/KIND, ConfigDir/KIND, then from the repository
// root down to the working directory each folder's .claude/KIND and
// .atomic/KIND. The project overrides the user, and the nearest folder
// wins, as Claude Code has it. Folders are listed whether or not they
// exist.
func Find(kind string, p Places) []Dir {
	var dirs []Dir
	if p.Home != "" {
		dirs = append(dirs, Dir{filepath.Join(p.Home, ".claude", kind), UserScope})
	}
	if p.ConfigDir != "" {
		dirs = append(dirs, Dir{filepath.Join(p.ConfigDir, kind), UserScope})
	}
	project := Project(p.Dir)
	for i := len(project) - 1; i >= 0; i-- {
		d := project[i]
		// The home folder's .claude is the user's, listed already: a
		// repository at ~ (dotfiles) must not make it the project's too.
		if p.Home == "" || d != filepath.Clean(p.Home) {
			dirs = append(dirs, Dir{filepath.Join(d, ".claude", kind), ProjectScope})
		}
		dirs = append(dirs, Dir{filepath.Join(d, ".atomic", kind), ProjectScope})
	}
	return dirs
}

// Paths are the folders' paths, in order.
func Paths(dirs []Dir) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = d.Path
	}
	return out
}

// Project lists dir and its parents up to the repository root (the one
// holding .git, a folder or a worktree's file), nearest first; just dir
// when no parent is a repository.
func Project(dir string) []string {
	if dir == "" {
		return nil
	}
	dir = filepath.Clean(dir)
	var dirs []string
	for d := dir; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return dirs
		}
		if filepath.Dir(d) == d {
			return []string{dir}
		}
	}
}
