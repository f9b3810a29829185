package commands

import (
	"strings"
)

// Expand fills the prompt with the arguments as Claude Code does:
// $ARGUMENTS is all of them, $1..$9 each (split at white space, quotes
// group words), a missing one is empty. A prompt that uses none of them
// gets the arguments appended on a line "ARGUMENTS: …", so they are never
// lost.
func (c Command) Expand(args string) string {
	words := splitArgs(args)
	used := false
	var b strings.Builder
	p := c.Prompt
	for i := 0; i < len(p); i++ {
		if p[i] != '$' {
			b.WriteByte(p[i])
			continue
		}
		if strings.HasPrefix(p[i:], "$ARGUMENTS") {
			b.WriteString(args)
			i += len("$ARGUMENTS") - 1
			used = true
			continue
		}
		if i+1 < len(p) && p[i+1] >= '1' && p[i+1] <= '9' && (i+2 >= len(p) || p[i+2] < '0' || p[i+2] > '9') {
			if n := int(p[i+1] - '1'); n < len(words) {
				b.WriteString(words[n])
			}
			i++
			used = true
			continue
		}
		b.WriteByte('$')
	}
	if !used && args != "" {
		b.WriteString("\n\nARGUMENTS: " + args)
	}
	return b.String()
}

// splitArgs splits at white space; '…' and "…" keep words together.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '\'' || r == '"'):
			quote, in = r, true
		case quote == 0 && (r == ' ' || r == '\t' || r == '\n'):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
