package tools

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// globPattern is a checked doublestar pattern: "*", "?" and "[...]" within
// one path segment, "**" across any number of segments, "{a,b}"
// alternatives, "\" escapes.
type globPattern struct {
	pattern string
	// segs is the pattern split at "/" for pruning; nil when a brace
	// alternative holds a "/", so segments do not line up with the path's.
	segs []string
}

// compileGlob checks a slash-separated pattern.
func compileGlob(pattern string) (*globPattern, error) {
	pattern = strings.Trim(pattern, "/")
	if !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("invalid glob pattern %q: unmatched { or [, or a trailing \\", pattern)
	}
	g := &globPattern{pattern: pattern}
	if !slashInBraces(pattern) {
		g.segs = strings.Split(pattern, "/")
	}
	return g, nil
}

// match reports whether the slash-separated relative path rel matches.
func (g *globPattern) match(rel string) bool {
	ok, _ := doublestar.Match(g.pattern, rel)
	return ok
}

// canDescend reports whether files below the directory rel (slash-separated,
// relative to where matching starts) could match, so a walk can skip
// directories that cannot. doublestar matches whole paths only, so this
// matches the directory against as many leading segments of the pattern;
// in doubt (a "**" among them, braces spanning a "/") it descends.
func (g *globPattern) canDescend(rel string) bool {
	if g.segs == nil {
		return true
	}
	dir := strings.Split(rel, "/")
	for i := range dir {
		if i < len(g.segs) && strings.Contains(g.segs[i], "**") {
			return true
		}
		if i >= len(g.segs)-1 { // the last pattern segment names the file itself
			return false
		}
	}
	ok, err := doublestar.Match(strings.Join(g.segs[:len(dir)], "/"), rel)
	return ok || err != nil
}

// slashInBraces reports whether a "{...}" group of pattern holds a "/".
func slashInBraces(pattern string) bool {
	depth := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case '/':
			if depth > 0 {
				return true
			}
		}
	}
	return false
}

// literalPrefix splits a slash-separated pattern into its leading folder
// without magic characters (a directory to start from, unescaped) and the
// rest.
func literalPrefix(pattern string) (dir, rest string) {
	dir, rest = doublestar.SplitPattern(pattern)
	if dir == "." && !strings.HasPrefix(pattern, "./") {
		dir = ""
	}
	return dir, rest
}
