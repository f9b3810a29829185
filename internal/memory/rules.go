package memory

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomic-agent/atomic/internal/frontmatter"
)

// rules loads the *.md files of a .claude/rules folder and its
// subfolders, in name order. A rules file may open with front matter
// whose "paths" names the files it is for (Claude Code loads it only for
// those; Atomic loads it always and says what it is for).
func (l *loader) rules(dir string, kind Kind) {
	var paths []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if !(errors.Is(err, fs.ErrNotExist) && path == dir) {
				l.problem(path, 0, err)
			}
			return nil
		}
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		l.problem(dir, 0, err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		l.load(p, kind, "", 0, []string{})
	}
}

// ruleFrontMatter strips a rules file's front matter, returning its body
// and its "paths" as one line.
func ruleFrontMatter(text string) (body, paths string, err error) {
	fields, body, err := frontmatter.Text([]byte(text), func(k string) bool { return k == "paths" || k == "description" })
	if err != nil {
		return "", "", err
	}
	paths = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(fields["paths"], "["), "]"))
	return body, paths, nil
}
