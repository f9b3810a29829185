package memory

import (
	"strings"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// importRef is one @path in a memory file, and its line.
type importRef struct {
	path string
	line int
}

// importToken is Claude Code's: an @ at the start of a word (so an email
// address is not one), then the path up to white space; "\ " is a space
// in the path.
var importToken = lazy.Regexp{Expr: `(?:^|\s)@((?:[^\s\\]|\\ )+)`}

// imports finds the @path imports of a Markdown text, outside fenced code
// blocks and `code spans`, in order.
func imports(text string) []importRef {
	var out []importRef
	var fence string // the opening fence while inside a fenced block
	for i, line := range strings.Split(text, "\n") {
		if f := fenceOf(line); f != "" {
			switch {
			case fence == "":
				fence = f
				continue
			case f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(line) == f:
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		for _, m := range importToken.Get().FindAllStringSubmatch(withoutCodeSpans(line), -1) {
			if p, ok := importPath(m[1]); ok {
				out = append(out, importRef{path: p, line: i + 1})
			}
		}
	}
	return out
}

// fenceOf is the ``` or ~~~ run opening line (indented at most three
// spaces), or "".
func fenceOf(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return ""
	}
	return t[:n]
}

// withoutCodeSpans blanks out `code spans` of a line: a run of backticks
// up to the next run of the same length. An unclosed run is plain text.
func withoutCodeSpans(line string) string {
	b := []byte(line)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := runLen(b, i)
		end := -1
		for j := i + n; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			if m := runLen(b, j); m == n {
				end = j + m
				break
			} else {
				j += m
			}
		}
		if end < 0 {
			i += n
			continue
		}
		for k := i; k < end; k++ {
			b[k] = ' '
		}
		i = end
	}
	return string(b)
}

func runLen(b []byte, i int) int {
	n := 0
	for i+n < len(b) && b[i+n] == b[i] {
		n++
	}
	return n
}

// importPath cleans a matched @token into a path, as Claude Code does: no
// #fragment, "\ " is a space, trailing sentence punctuation dropped. ok is
// false for tokens that are not paths (@@x, @#x, a bare /).
func importPath(tok string) (string, bool) {
	if i := strings.IndexByte(tok, '#'); i >= 0 {
		tok = tok[:i]
	}
	tok = strings.ReplaceAll(tok, `\ `, " ")
	tok = strings.TrimRight(tok, ".,;:!?)]'\"")
	if tok == "" || tok == "/" {
		return "", false
	}
	c := tok[0]
	ok := strings.HasPrefix(tok, "./") || strings.HasPrefix(tok, "../") || strings.HasPrefix(tok, "~/") || c == '/' ||
		c == '.' || c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	return tok, ok
}
