package redact

import "strings"

// A keyShape is how one family of credentials looks: a fixed start
// (anchor, then optionally one byte of class and the literal tail), then a
// body of chars, min to max long (max 0: no bound), holding a digit when
// digit is set (which keeps a long hyphenated word from looking like a
// key). It matches only at the start of a token: the byte before it is
// not one of a key's own characters, unless it ends a JSON or URL escape
// (`\n`, `\u0022`, `%22`), as in stored JSON; an anchor no word holds
// (anywhere) matches inside a token too ("name-sk-ant-…").
type keyShape struct {
	name     string
	anchor   string
	class    string
	tail     string
	chars    func(byte) bool
	min      int
	max      int
	digit    bool
	anywhere bool
}

// keyShapes are the credentials masked wherever they appear, known or
// not. README's Sessions section lists them; keep the two in step.
var keyShapes = []keyShape{
	{name: "Anthropic keys", anchor: "sk-ant-", chars: isKeyChar, min: 20, anywhere: true},
	{name: "OpenAI project keys", anchor: "sk-proj-", chars: isKeyChar, min: 20, anywhere: true},
	{name: "other sk- keys (OpenAI, DeepSeek, OpenRouter…)", anchor: "sk-", chars: isKeyChar, min: 20, digit: true},
	{name: "GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_)", anchor: "gh", class: "pousr", tail: "_", chars: isAlnum, min: 30},
	{name: "GitHub fine-grained tokens", anchor: "github_pat_", chars: isWordChar, min: 22, anywhere: true},
	{name: "AWS access key ids", anchor: "AKIA", chars: isUpperDigit, min: 16, max: 16},
	{name: "AWS temporary access key ids", anchor: "ASIA", chars: isUpperDigit, min: 16, max: 16},
	{name: "Slack tokens (xoxb-, xoxa-, xoxp-, xoxr-, xoxs-)", anchor: "xox", class: "baprs", tail: "-", chars: isSlackChar, min: 10},
	{name: "Google API keys", anchor: "AIza", chars: isKeyChar, min: 35, max: 35},
	{name: "Groq keys", anchor: "gsk_", chars: isAlnum, min: 20},
	{name: "xAI keys", anchor: "xai-", chars: isKeyChar, min: 20, digit: true},
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
func isWordChar(c byte) bool   { return isAlnum(c) || c == '_' }
func isKeyChar(c byte) bool    { return isWordChar(c) || c == '-' }
func isSlackChar(c byte) bool  { return isAlnum(c) || c == '-' }
func isUpperDigit(c byte) bool { return 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }
func isHex(c byte) bool        { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// text is what the scan reads: a string, or bytes not copied into one.
type text interface{ ~string | ~[]byte }

// maskKeys returns s with every key-shaped run replaced by Mask, s itself
// when there is none.
func maskKeys(s string) string {
	start, end, ok := nextKey(s, 0, -1)
	if !ok {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	copied := 0 // s[:copied] is in b
	for ok {
		b.WriteString(s[copied:start])
		b.WriteString(Mask)
		copied = end
		start, end, ok = nextKey(s, end, end)
	}
	b.WriteString(s[copied:])
	return b.String()
}

// nextKey finds the first key-shaped run in s at or after from; a match
// ended at last (a key may follow it at once). One pass: only a byte that
// starts an anchor is looked at further.
func nextKey[T text](s T, from, last int) (start, end int, ok bool) {
	for i := from; i < len(s); i++ {
		switch s[i] {
		case 's', 'g', 'A', 'x':
		default:
			continue
		}
		for k := range keyShapes {
			shape := &keyShapes[k]
			if shape.anchor[0] != s[i] || !hasPrefixAt(s, i, shape.anchor) {
				continue
			}
			if end, ok := matchAt(shape, s, i, i == last); ok {
				return i, end, true
			}
		}
	}
	return 0, 0, false
}

// hasPrefixAt reports whether s[i:] starts with p.
func hasPrefixAt[T text](s T, i int, p string) bool {
	if len(s)-i < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		if s[i+j] != p[j] {
			return false
		}
	}
	return true
}

// matchAt reports whether a key of shape k starts at s[i:] (its anchor is
// there) and where it ends. adjoining: a match of k ends at i.
func matchAt[T text](k *keyShape, s T, i int, adjoining bool) (end int, ok bool) {
	if !adjoining && !k.anywhere && !tokenStart(s, i) {
		return 0, false
	}
	j := i + len(k.anchor)
	if k.class != "" {
		if j >= len(s) || strings.IndexByte(k.class, s[j]) < 0 {
			return 0, false
		}
		j++
	}
	if !hasPrefixAt(s, j, k.tail) {
		return 0, false
	}
	j += len(k.tail)
	e, digit := j, false
	for e < len(s) && k.chars(s[e]) && (k.max == 0 || e-j < k.max) {
		digit = digit || '0' <= s[e] && s[e] <= '9'
		e++
	}
	if e-j < k.min || k.digit && !digit {
		return 0, false
	}
	return e, true
}

// tokenStart reports whether s[i] starts a token: what precedes it is not
// a key's character, or ends an escape (JSON `\n`, `\u0022`; URL `%22`).
func tokenStart[T text](s T, i int) bool {
	switch {
	case i == 0 || !isKeyChar(s[i-1]):
		return true
	case i >= 2 && s[i-2] == '\\':
		return true
	case i >= 6 && s[i-6] == '\\' && s[i-5] == 'u' && isHex(s[i-4]) && isHex(s[i-3]) && isHex(s[i-2]) && isHex(s[i-1]):
		return true
	case i >= 3 && s[i-3] == '%' && isHex(s[i-2]) && isHex(s[i-1]):
		return true
	}
	return false
}
