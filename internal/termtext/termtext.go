// Package termtext makes text from the model (or a tool, or a file) safe
// to print on a terminal. A terminal acts on the control sequences in
// what it is given: OSC 52 writes the user's clipboard, OSC 0 sets the
// window title, OSC 8 hides a link's target, CSI clears the screen or
// moves the cursor to overwrite what was printed, DCS and the 8-bit C1
// controls do the like. Text printed as text keeps its letters, newlines
// and tabs, and loses every control sequence and control character.
package termtext

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Sanitize returns s without terminal control sequences (ESC-introduced
// CSI, OSC, DCS, SOS, PM, APC and two-byte escapes, their 8-bit C1 forms,
// a lone ESC) and without other control characters but newline and tab.
// Text without any of them is returned unchanged, byte for byte (invalid
// UTF-8 outside the C1 range too).
func Sanitize(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			if c := s[i]; c >= 0x80 && c <= 0x9f { // a raw 8-bit C1 control
				i += 1 + afterC1(s, i+1, rune(c))
				continue
			}
			b.WriteByte(s[i])
			i++
			continue
		}
		switch {
		case r == 0x1b:
			i += 1 + skipEscape(s, i+1)
		case r >= 0x80 && r <= 0x9f:
			i += size + afterC1(s, i+size, r)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
			i += size
		case r < 0x20 || r == 0x7f:
			i += size // BEL, backspace, carriage return and the other C0 controls
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
}

// clean reports whether s has nothing Sanitize removes.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c == 0xc2 || c >= 0x80 && c <= 0x9f {
			return false // 0xc2 starts U+0080–U+00BF: look closer
		}
	}
	return true
}

// skipEscape returns how many bytes after an ESC at s[i-1] belong to its
// sequence.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return 0 // a lone ESC at the end
	}
	switch c := s[i]; {
	case c == '[':
		return 1 + skipCSI(s, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return 1 + skipString(s, i+1)
	case c >= 0x20 && c <= 0x2f: // intermediates, then a final byte
		n := 0
		for i+n < len(s) && s[i+n] >= 0x20 && s[i+n] <= 0x2f {
			n++
		}
		if i+n < len(s) && s[i+n] >= 0x30 && s[i+n] <= 0x7e {
			n++
		}
		return n
	case c >= 0x30 && c <= 0x7e: // a two-byte escape: ESC c resets the terminal
		return 1
	}
	return 0 // ESC before a control or non-ASCII: drop the ESC alone
}

// afterC1 returns how many bytes from s[i] belong to the sequence the C1
// control r (just before s[i]) introduces.
func afterC1(s string, i int, r rune) int {
	switch r {
	case 0x9b: // CSI
		return skipCSI(s, i)
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f: // OSC, DCS, SOS, PM, APC
		return skipString(s, i)
	}
	return 0
}

// skipCSI returns the length of a CSI sequence's parameters,
// intermediates and final byte starting at s[i]; a sequence cut short by
// a byte that cannot be in it ends before that byte.
func skipCSI(s string, i int) int {
	n := 0
	for i+n < len(s) {
		c := s[i+n]
		switch {
		case c >= 0x20 && c <= 0x3f:
			n++
		case c >= 0x40 && c <= 0x7e:
			return n + 1
		default:
			return n
		}
	}
	return n
}

// skipString returns the length of a control string (OSC, DCS, SOS, PM,
// APC) starting at s[i], its terminator included: BEL, ESC \ or the C1
// ST; unterminated, it runs to the end of s.
func skipString(s string, i int) int {
	for j := i; j < len(s); j++ {
		switch {
		case s[j] == 0x07:
			return j + 1 - i
		case s[j] == 0x1b:
			if j+1 < len(s) && s[j+1] == '\\' {
				return j + 2 - i
			}
			return j - i // another escape begins: the string ends here
		case s[j] == 0x9c:
			return j + 1 - i
		case s[j] == 0xc2 && j+1 < len(s) && s[j+1] == 0x9c:
			return j + 2 - i
		}
	}
	return len(s) - i
}

// EscapeC1 returns JSON text with the C1 controls (U+0080–U+009F), which
// encoding/json writes as raw UTF-8, written as \u escapes instead, so a
// terminal the JSON is printed on does not act on them. They can only be
// inside strings, so the JSON means the same.
func EscapeC1(b []byte) []byte {
	i := indexC1(b)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i >= 0 {
		out = append(out, b[:i]...)
		out = append(out, '\\', 'u', '0', '0', "0123456789abcdef"[b[i+1]>>4], "0123456789abcdef"[b[i+1]&0xf])
		b = b[i+2:]
		i = indexC1(b)
	}
	return append(out, b...)
}

func indexC1(b []byte) int {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == 0xc2 && b[i+1] >= 0x80 && b[i+1] <= 0x9f {
			return i
		}
	}
	return -1
}

// JSONWriter returns a writer that passes each Write through EscapeC1:
// give it whole JSON values (a json.Encoder writes one value per Write).
func JSONWriter(w io.Writer) io.Writer { return jsonWriter{w} }

type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(EscapeC1(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
