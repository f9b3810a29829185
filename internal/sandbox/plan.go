package sandbox

import (
	"fmt"
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
//
// A writable folder that holds a secret (Atomic run in $HOME, or
// --add-dir ~) is split the same way: a write rule covers reading too, so
// one on $HOME would open ~/.ssh. Its entries but the secret get write
// rules; the folder itself and those leading to the secret get none, as
// a right to create or remove entries there would reach into the secret
// store too. A writable folder inside a secret store gets no rule.
func plan(writable, secrets []string) []rule {
	var rules []rule
	var walk func(dir string, write bool)
	walk = func(dir string, write bool) {
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
					walk(p, write)
				}
				continue
			}
			// A symlink is granted where it points: not into a secret,
			// nor onto a folder that holds one.
			if r, err := filepath.EvalSymlinks(p); err != nil || r != p && (isUnder(r, secrets) || leadsTo(r, secrets)) {
				continue
			}
			rules = append(rules, rule{path: p, write: write})
		}
	}
	if leadsTo("/", secrets) {
		walk("/", false)
	} else {
		rules = append(rules, rule{path: "/"})
	}
	for _, w := range writable {
		if w == "" {
			continue
		}
		w = filepath.Clean(w)
		if r, err := filepath.EvalSymlinks(w); err == nil {
			w = r // the rule holds where the path leads
		}
		switch {
		case isUnder(w, secrets):
		case leadsTo(w, secrets):
			walk(w, true)
		default:
			rules = append(rules, rule{path: w, write: true})
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

// Overlaps says, a line each, which writable folders the secrets limit:
// one inside a secret store commands may neither read nor write; in one
// that holds a secret store they may not touch the store nor add or remove
// entries in the folders leading to it (see plan). Empty when none. It
// compares the paths as given, with no file system access unless one
// overlaps (it runs at every start); the rules themselves follow links.
func Overlaps(writable, secrets []string) []string {
	var out []string
	for _, w := range writable {
		if w == "" {
			continue
		}
		w = filepath.Clean(w)
		var held []string
		for _, s := range secrets {
			if s == "" {
				continue
			}
			s = filepath.Clean(s)
			if isUnder(w, []string{s}) {
				out = append(out, fmt.Sprintf("sandbox: %s is inside a secret store, so commands can neither read nor write it", w))
				held = nil
				break
			}
			if leadsTo(w, []string{s}) {
				if _, err := os.Lstat(s); err == nil {
					held = append(held, s)
				}
			}
		}
		if len(held) > 0 {
			out = append(out, fmt.Sprintf("sandbox: %s holds %s: commands may write the rest of it but not read or change those, nor create or remove entries directly in %s or the folders leading to them", w, strings.Join(held, ", "), w))
		}
	}
	return out
}
