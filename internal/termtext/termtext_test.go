package termtext

import (
	"encoding/json"
	"strings"
	"testing"
)

// hostile is text a model could write to act on the user's terminal, and
// what must be left of it.
var hostile = []struct{ name, in, want string }{
	{"OSC 52 clipboard, BEL", "a\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07b", "ab"},
	{"OSC 52 clipboard, ST", "a\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x1b\\b", "ab"},
	{"OSC 52 clipboard, C1 ST", "a\x1b]52;c;eA==\u009cb", "ab"},
	{"OSC 0 title", "\x1b]0;pwned\x07title", "title"},
	{"OSC 8 hidden link", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"},
	{"CSI clear screen", "x\x1b[2J\x1b[H\x1b[3Jy", "xy"},
	{"CSI cursor up to overwrite", "ok\n\x1b[1A\x1b[2Kfake", "ok\nfake"},
	{"CSI private mode", "\x1b[?1049hhidden\x1b[?1049l", "hidden"},
	{"SGR colour", "\x1b[31mred\x1b[0m", "red"},
	{"DCS", "a\x1bP1$tx\x1b\\b", "ab"},
	{"APC, PM, SOS", "\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\z", "z"},
	{"ESC c reset", "a\x1bcb", "ab"},
	{"charset designation", "a\x1b(0b", "ab"},
	{"a lone ESC at the end", "text\x1b", "text"},
	{"ESC before a newline", "a\x1b\nb", "a\nb"},
	{"8-bit CSI as UTF-8", "a\u009b2Jb", "ab"},
	{"8-bit OSC as UTF-8", "a\u009d52;c;eA==\u0007b", "ab"},
	{"8-bit DCS as UTF-8", "a\u0090q\u009cb", "ab"},
	{"raw 8-bit CSI byte", "a\x9b2Jb", "ab"},
	{"raw 8-bit OSC byte", "a\x9d0;t\x07b", "ab"},
	{"other C1 controls", "a\u0085\u0084b", "ab"},
	{"BEL, backspace overstrike, carriage return, DEL", "rm\x08\x08ls\r\x07x\x7f", "rmlsx"},
	{"unterminated OSC", "a\x1b]52;c;eA==", "a"},
	{"unterminated CSI", "a\x1b[12", "a"},
}

// plain text, kept byte for byte.
var plain = []string{
	"", "hello", "line one\nline two\n\tindented", "unicode: é ü ß 日本語 ě ĝ ğ 🙂",
	"a backslash \\ and [brackets] and ]52;", "invalid \xff\xfe utf-8 kept", "U+00A0 no-break\u00a0space",
}

func TestSanitizeStripsEveryTerminalControlSequence(t *testing.T) {
	for _, tt := range hostile {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("%s: Sanitize(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestSanitizeKeepsPlainTextByteForByte(t *testing.T) {
	for _, s := range plain {
		if got := Sanitize(s); got != s {
			t.Errorf("Sanitize(%q) = %q", s, got)
		}
	}
}

func TestEscapeC1LeavesNoRawC1InJSONAndMeansTheSame(t *testing.T) {
	for _, tt := range hostile {
		b, _ := json.Marshal(map[string]string{"text": tt.in + "é日"})
		out := EscapeC1(b)
		if strings.ContainsAny(string(out), "\x1b\x07\u0080\u0085\u0090\u009b\u009c\u009d") {
			t.Errorf("%s: JSON keeps a control: %q", tt.name, out)
		}
		var back, want map[string]string
		_ = json.Unmarshal(b, &want)
		if err := json.Unmarshal(out, &back); err != nil || back["text"] != want["text"] {
			t.Errorf("%s: %q does not decode to the same text: %q %v", tt.name, out, back["text"], err)
		}
	}
}
