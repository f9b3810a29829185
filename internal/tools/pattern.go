package tools

import (
	"fmt"
	"path"
	"strings"
)

// globPattern is a compiled file pattern: "*", "?" and "[...]" within one
// path segment, "**" across any number of segments, "{a,b}" alternatives.
type globPattern struct {
	alts [][]string // one segment list per brace alternative
}

// compileGlob checks and compiles a slash-separated pattern.
func compileGlob(pattern string) (*globPattern, error) {
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, err
	}
	g := &globPattern{}
	for _, a := range alts {
		segs := strings.Split(strings.Trim(a, "/"), "/")
		for _, s := range segs {
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("invalid glob pattern %q: bad segment %q", pattern, s)
			}
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

// match reports whether the slash-separated relative path rel matches.
func (g *globPattern) match(rel string) bool {
	segs := strings.Split(rel, "/")
	for _, a := range g.alts {
		if matchSegments(a, segs) {
			return true
		}
	}
	return false
}

// matchSegments matches path segments against pattern segments, where a
// "**" segment matches zero or more segments, except at the end where it
// matches one or more (everything inside, not the directory itself).
func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return len(name) > 0
			}
			for i := 0; i <= len(name); i++ {
				if matchSegments(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 || !matchSegment(pat[0], name[0]) {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// matchSegment matches one path segment; a malformed pattern matches
// nothing.
func matchSegment(pat, name string) bool {
	ok, err := path.Match(pat, name)
	return err == nil && ok
}

// maxBraceAlternatives bounds brace expansion ("{a,b}{c,d}..." grows
// exponentially).
const maxBraceAlternatives = 256

// expandBraces expands "{a,b}" alternatives, nested or in sequence:
// "*.{go,md}" gives "*.go" and "*.md".
func expandBraces(p string) ([]string, error) {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		if strings.IndexByte(p, '}') >= 0 {
			return nil, fmt.Errorf("invalid glob pattern %q: unmatched }", p)
		}
		return []string{p}, nil
	}
	depth, close := 0, -1
	var commas []int
	for i := open; i < len(p) && close < 0; i++ {
		switch p[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				close = i
			}
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		}
	}
	if close < 0 {
		return nil, fmt.Errorf("invalid glob pattern %q: unmatched {", p)
	}
	prefix, suffix := p[:open], p[close+1:]
	bounds := append(append([]int{open}, commas...), close)
	var out []string
	for i := 0; i+1 < len(bounds); i++ {
		alt := p[bounds[i]+1 : bounds[i+1]]
		exp, err := expandBraces(prefix + alt + suffix)
		if err != nil {
			return nil, err
		}
		out = append(out, exp...)
		if len(out) > maxBraceAlternatives {
			return nil, fmt.Errorf("invalid glob pattern %q: more than %d brace alternatives", p, maxBraceAlternatives)
		}
	}
	return out, nil
}

// literalPrefix splits a slash-separated pattern into its leading segments
// without magic characters (a directory to start from) and the rest.
func literalPrefix(pattern string) (dir, rest string) {
	segs := strings.Split(pattern, "/")
	i := 0
	for ; i < len(segs)-1; i++ {
		if strings.ContainsAny(segs[i], "*?[{\\") {
			break
		}
	}
	return strings.Join(segs[:i], "/"), strings.Join(segs[i:], "/")
}

// canDescend reports whether files below the directory rel (slash-separated,
// relative to where matching starts) could match, so a walk can skip
// directories that cannot.
func (g *globPattern) canDescend(rel string) bool {
	segs := strings.Split(rel, "/")
	for _, a := range g.alts {
		if prefixMatches(a, segs) {
			return true
		}
	}
	return false
}

// prefixMatches reports whether the directory segments dir can be the
// start of a path matching pat.
func prefixMatches(pat, dir []string) bool {
	for i, d := range dir {
		if i < len(pat) && pat[i] == "**" {
			return true
		}
		if i >= len(pat)-1 { // the last pattern segment names the file itself
			return false
		}
		if !matchSegment(pat[i], d) {
			return false
		}
	}
	return true
}
