package permission

import (
	"path/filepath"
	"strings"

	"github.com/atomic-agent/atomic/internal/tools"
)

// pathTools are the tools whose subject is a file path. Their rules are
// matched on the path with every symlink resolved too, so a link cannot
// carry a write past write(secret.env) or out of write(docs/:*).
func pathTools(k string) bool {
	switch k {
	case "read", "write", "edit", "multi_edit", "ls":
		return true
	}
	return false
}

// matchPath reports whether the path rule p covers subject. A deny rule
// matches the path as written or as resolved; an allow rule only as
// resolved (with the rule's own path resolved alike), since the resolved
// path is the file that is really touched.
func (g *Gate) matchPath(p Pattern, subject string, deny bool) bool {
	if !p.HasArg {
		return true
	}
	if p.Wildcard && p.Prefix == "" {
		return true
	}
	if deny && pathMatch(p.Prefix, p.Wildcard, subject) {
		return true
	}
	return pathMatch(g.canonical(p.Prefix), p.Wildcard, g.canonical(subject))
}

// pathMatch: an exact rule names one path; a wildcard rule (docs/:*,
// docs/*) the path and everything below it.
func pathMatch(prefix string, wildcard bool, subject string) bool {
	if !wildcard {
		return subject == prefix || filepath.Clean(subject) == filepath.Clean(prefix)
	}
	if prefix == "" {
		return true
	}
	trimmed := strings.TrimSuffix(prefix, "/")
	if subject == trimmed {
		return true
	}
	return strings.HasPrefix(subject, trimmed+"/") || strings.HasPrefix(subject, prefix) && strings.HasSuffix(prefix, "/")
}

// canonical resolves p (relative to the gate's root) through every
// symlink and returns it relative to the root when inside, as subjects
// are written; otherwise absolute.
func (g *Gate) canonical(p string) string {
	if p == "" {
		return ""
	}
	root := g.root
	if root == "" {
		root = "."
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return p
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	}
	real, err := tools.RealPath(abs)
	if err != nil {
		return p
	}
	if r, err := tools.RealPath(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return real
	}
	return filepath.ToSlash(rel)
}
