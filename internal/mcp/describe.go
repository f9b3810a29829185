package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// varRef matches a ${VAR} or ${VAR:-default} reference.
var varRef = lazy.Regexp{Expr: `\$\{([^}:]+)(:-[^}]*)?\}`}

// Describe says what s runs or where it connects, as its entry is
// written: the command and arguments (or URL), the names of its env
// entries and headers, and every variable of the user's environment it
// reads (a ${ANTHROPIC_API_KEY} in an argument or header is what an
// approval would hand over). Values are not shown: an entry's literal
// token stays off the screen.
func Describe(s Server) string {
	r := rawServer{Command: s.Command, Args: s.Args, URL: s.URL}
	if s.Entry != "" {
		_ = json.Unmarshal([]byte(s.Entry), &r) // Parse has decoded it once already
	}
	var out string
	if s.Type == Stdio {
		parts := []string{quote(r.Command)}
		for _, a := range r.Args {
			parts = append(parts, quote(a))
		}
		out = strings.Join(parts, " ")
	} else {
		out = s.Type + " " + r.URL
	}
	if len(r.Env) > 0 {
		out += " (env " + strings.Join(slices.Sorted(maps.Keys(r.Env)), ", ") + ")"
	}
	if len(r.Headers) > 0 {
		out += " (headers " + strings.Join(slices.Sorted(maps.Keys(r.Headers)), ", ") + ")"
	}
	if vars := references(s.Entry); len(vars) > 0 {
		out += " reading your " + strings.Join(vars, ", ")
	}
	return out
}

// references lists the variables an entry reads, once each, sorted.
func references(entry string) []string {
	var out []string
	for _, m := range varRef.Get().FindAllStringSubmatch(entry, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return out
}

func quote(a string) string {
	if a == "" || strings.ContainsAny(a, " \t\"'\\") {
		return fmt.Sprintf("%q", a)
	}
	return a
}
