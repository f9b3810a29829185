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

// maskKeys returns s with every key-shaped run replaced by Mask, s itself
// when there is none. One pass: only a byte that starts an anchor is
// looked at further.
func maskKeys(s string) string {
	var b strings.Builder
	copied, last := 0, -1 // s[:copied] is in b; a match ended at last
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 's', 'g', 'A', 'x':
		default:
			continue
		}
		for k := range keyShapes {
			shape := &keyShapes[k]
			if shape.anchor[0] != s[i] || !strings.HasPrefix(s[i:], shape.anchor) {
				continue
			}
			end, ok := shape.matchAt(s, i, i == last)
			if !ok {
				continue
			}
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[copied:i])
			b.WriteString(Mask)
			copied, last = end, end
			i = end - 1
			break
		}
	}
	if copied == 0 {
		return s
	}
	b.WriteString(s[copied:])
	return b.String()
}

// matchAt reports whether a key of shape k starts at s[i:] (its anchor is
// there) and where it ends. adjoining: a match of k ends at i.
func (k *keyShape) matchAt(s string, i int, adjoining bool) (end int, ok bool) {
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
	if !strings.HasPrefix(s[j:], k.tail) {
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
func tokenStart(s string, i int) bool {
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
