package tools

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// gitignore holds the rules of one .gitignore file, which apply to paths
// below its directory.
//
// The line syntax is parsed here and the patterns matched by doublestar.
// go-git's plumbing/format/gitignore (v5.19.3) was measured as the
// alternative and not taken: it adds 27,778 bytes to the binary (doublestar
// is linked already) and gets four of git's decisions wrong that
// TestGitignoreEdgeCasesFollowGit and TestWalkTreeStartingInsideAnIgnoredFolderListsIt
// pin: "**" does not backtrack ("**/foo/bar" misses foo/x/foo/bar),
// "out/**" ignores the folder out itself (so "!out/keep.txt" can never
// re-include), "[!0-9]" is not a negated class, and a rule naming a parent
// of the walk's start hides everything below it.
type gitignore struct {
	dir   string // clean absolute directory holding the file
	rules []ignoreRule
}

// ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	glob     string // doublestar pattern: the whole relative path when anchored, else the base name
	negate   bool   // "!pattern" re-includes
	dirOnly  bool   // "pattern/" matches directories only
	anchored bool   // a "/" at the start or middle: match from dir, not any depth
}

// readGitignore loads dir/.gitignore; nil when there is none or it is
// unreadable (an unreadable ignore file ignores nothing, as in git).
func readGitignore(dir string) *gitignore {
	data, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return nil
	}
	return parseGitignore(dir, data)
}

// readExclude loads the repository's own ignore file, .git/info/exclude
// of top (a repository's root: Atomic lists its sub-agents' worktrees
// there); nil when there is none.
func readExclude(top string) *gitignore {
	data, err := os.ReadFile(filepath.Join(top, ".git", "info", "exclude"))
	if err != nil {
		return nil
	}
	return parseGitignore(top, data)
}

// parseGitignore parses the text of a .gitignore file found in dir,
// following gitignore(5): blank lines and "#" comments are skipped,
// trailing spaces dropped unless escaped, "!" negates, a trailing "/"
// matches directories only, a "/" at the start or in the middle anchors
// the pattern to dir, and "**" matches any number of directories.
func parseGitignore(dir string, data []byte) *gitignore {
	g := &gitignore{dir: filepath.Clean(dir)}
	for line := range bytes.Lines(data) {
		s := strings.TrimRight(string(line), "\r\n")
		s = trimUnescapedSpaces(s)
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		var r ignoreRule
		if strings.HasPrefix(s, "!") {
			r.negate = true
			s = s[1:]
		}
		if strings.HasSuffix(s, "/") {
			r.dirOnly = true
			s = strings.TrimRight(s, "/")
		}
		if s == "" {
			continue
		}
		if strings.HasPrefix(s, "/") {
			r.anchored = true
			s = strings.TrimLeft(s, "/")
		} else if strings.Contains(s, "/") {
			r.anchored = true
		}
		// "**/x" at the start matches x at any depth, like an unanchored x.
		if rest, ok := strings.CutPrefix(s, "**/"); ok && !strings.Contains(rest, "/") && rest != "**" {
			s, r.anchored = rest, false
		}
		// A trailing "/**" matches what is inside, not the folder itself
		// (doublestar's "x/**" also matches x).
		if rest, ok := strings.CutSuffix(s, "/**"); ok {
			s = rest + "/*/**"
		}
		r.glob = escapeBraces(s)
		if !doublestar.ValidatePattern(r.glob) {
			continue // git matches nothing with a malformed pattern
		}
		g.rules = append(g.rules, r)
	}
	return g
}

// trimUnescapedSpaces drops trailing spaces that are not escaped with "\".
func trimUnescapedSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\\ ") {
		s = s[:len(s)-1]
	}
	return s
}

// escapeBraces quotes "{" and "}", which gitignore patterns take
// literally and doublestar reads as alternatives.
func escapeBraces(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			b.WriteByte(c)
			i++
			b.WriteByte(s[i])
		case c == '{' || c == '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// match reports whether a rule of g matches rel (slash-separated, relative
// to g.dir) and, if so, whether the last matching rule negates: in git the
// last matching pattern of a file decides.
func (g *gitignore) match(rel string, isDir bool) (matched, negated bool) {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	for i := len(g.rules) - 1; i >= 0; i-- {
		r := g.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		name := base
		if r.anchored {
			name = rel
		}
		if ok, _ := doublestar.Match(r.glob, name); ok {
			return true, r.negate
		}
	}
	return false, false
}

// ignoreStack is the .gitignore files in effect for a directory, outermost
// first.
type ignoreStack []*gitignore

// ignored reports whether the entry abs is ignored. Deeper .gitignore files
// take precedence over shallower ones, as in git.
func (s ignoreStack) ignored(abs string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		rel, ok := relBelow(s[i].dir, abs)
		if !ok {
			continue
		}
		if m, neg := s[i].match(rel, isDir); m {
			return !neg
		}
	}
	return false
}

// relBelow returns abs relative to dir, slash-separated, if abs is below
// dir.
func relBelow(dir, abs string) (string, bool) {
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	rest, ok := strings.CutPrefix(abs, prefix)
	if !ok || rest == "" {
		return "", false
	}
	return filepath.ToSlash(rest), true
}

// ancestorIgnores loads the .gitignore files of start's ancestors that
// apply to it, outermost first: those from the enclosing repository's root
// (the nearest ancestor holding .git, even above ceiling) down to start's
// parent or, outside any repository, those from ceiling down when start is
// below it.
func ancestorIgnores(start, ceiling string) ignoreStack {
	top := ""
	for dir := start; ; {
		if exists(filepath.Join(dir, ".git")) {
			top = dir
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if top == "" {
		if ceiling == "" || !within(ceiling, start) {
			return nil
		}
		top = ceiling
	}
	var dirs []string
	for dir := start; dir != top; {
		dir = filepath.Dir(dir)
		dirs = append(dirs, dir)
		if dir == filepath.Dir(dir) {
			break
		}
	}
	var s ignoreStack
	if g := readExclude(top); g != nil {
		s = append(s, g) // first: every .gitignore overrides it, as in git
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if g := readGitignore(dirs[i]); g != nil {
			s = append(s, g)
		}
	}
	return s
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
