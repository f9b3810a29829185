package spawn

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomic-agent/atomic/internal/frontmatter"
)

// AgentFileError is a malformed agent file: it is reported and skipped.
type AgentFileError struct {
	Path string
	Line int // 0 when unknown
	Err  error
}

func (e *AgentFileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *AgentFileError) Unwrap() error { return e.Err }

// AgentFileWarning is an agent file that loaded without some of what it
// asks for (Claude Code fields or tools Atomic lacks): one per file,
// naming them.
type AgentFileWarning struct {
	Path    string
	Line    int // of the first thing ignored; 0 when unknown
	Ignored []string
}

func (w *AgentFileWarning) Error() string {
	at := w.Path
	if w.Line > 0 {
		at = fmt.Sprintf("%s:%d", w.Path, w.Line)
	}
	return fmt.Sprintf("%s: loaded without what Atomic lacks: %s", at, strings.Join(w.Ignored, "; "))
}

// LoadTypes builds a registry from the built-ins and the *.md files in
// dirs and their subfolders, as Claude Code loads agent folders (a type's
// name is its front matter's, not its path). dirs go lowest precedence
// first: a later file of a name replaces an earlier one. Missing folders
// are fine. Malformed files, and files that are not UTF-8 text, are
// skipped and returned as *AgentFileError values naming the path and
// line; files loaded without some of what they ask for are returned as
// *AgentFileWarning values.
func LoadTypes(dirs []string, knownTools []string) (*Registry, []error) {
	r := NewRegistry()
	var problems []error
	for _, dir := range dirs {
		var paths []string
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			switch {
			case err != nil && path == dir && errors.Is(err, fs.ErrNotExist):
				return fs.SkipDir
			case err != nil:
				problems = append(problems, &AgentFileError{Path: path, Err: err})
				return nil
			case !e.IsDir() && strings.HasSuffix(e.Name(), ".md"):
				paths = append(paths, path)
			}
			return nil
		})
		if err != nil {
			problems = append(problems, &AgentFileError{Path: dir, Err: err})
		}
		sort.Strings(paths)
		for _, path := range paths {
			data, err := frontmatter.ReadText(path)
			if err != nil {
				problems = append(problems, &AgentFileError{Path: path, Err: err})
				continue
			}
			t, warn, err := ParseType(path, data, knownTools)
			if err != nil {
				problems = append(problems, err)
				continue
			}
			if warn != nil {
				problems = append(problems, warn)
			}
			if !t.Disabled {
				r.Add(t)
			}
		}
	}
	return r, problems
}
