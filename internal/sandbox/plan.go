package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// rule grants access below path: read (execute and read files) or write
// (everything, reading included).
type rule struct {
	path  string
	write bool
}

// plan lists the rules that let commands read everything but the secrets
// and write under writable. Landlock can only allow, so every entry of
// "/" is allowed except the ones leading to a secret, which are split into
// their own entries in turn (e.g. $HOME's children but .ssh). Directory
// listing is allowed everywhere (a rule on "/" added by the kernel part),
// so the names in a secret folder show but their contents do not. Entries
// created after the first command under a split folder are not readable.
func plan(writable, secrets []string) []rule {
	var rules []rule
	var walk func(dir string)
	walk = func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return // unreadable: it stays closed
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if isUnder(p, secrets) {
				continue
			}
			if leadsTo(p, secrets) {
				if e.IsDir() {
					walk(p)
				}
				continue
			}
			// A symlink is granted where it points: not into a secret,
			// nor onto a folder that holds one.
			if r, err := filepath.EvalSymlinks(p); err != nil || r != p && (isUnder(r, secrets) || leadsTo(r, secrets)) {
				continue
			}
			rules = append(rules, rule{path: p})
		}
	}
	if leadsTo("/", secrets) {
		walk("/")
	} else {
		rules = append(rules, rule{path: "/"})
	}
	for _, w := range writable {
		if w != "" {
			rules = append(rules, rule{path: filepath.Clean(w), write: true})
		}
	}
	return rules
}

// isUnder reports whether p is one of roots or below one.
func isUnder(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}

// leadsTo reports whether a path in paths lies strictly below dir.
func leadsTo(dir string, paths []string) bool {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	for _, p := range paths {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}
