package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// escapes are answers a model could give to act on the terminal of a
// user running atomic -p, and the text that must be printed instead.
var escapes = []struct{ name, answer, printed string }{
	{"OSC 52 clipboard ended by BEL", "done\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07.", "done."},
	{"OSC 52 clipboard ended by ST", "done\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x1b\\.", "done."},
	{"OSC 0 window title", "\x1b]0;sudo password:\x07answer", "answer"},
	{"CSI clear screen and home", "\x1b[2J\x1b[Hall tests pass", "all tests pass"},
	{"DCS", "a\x1bP+q544e\x1b\\b", "ab"},
	{"8-bit C1 CSI and OSC", "a\u009b2Jb\u009d0;t\u009cc", "abc"},
	{"a lone ESC", "end\x1b", "end"},
	{"carriage return and backspaces", "safe\rrm -rf\x08\x08", "saferm -rf"},
	{"newlines and tabs kept", "line one\n\tline two", "line one\n\tline two"},
	{"plain unicode kept", "naïve café ě 日本 🙂 [x]", "naïve café ě 日本 🙂 [x]"},
}

// answering is a scenario whose model answers text (in a YAML string
// with every control escaped: YAML takes none raw).
func answering(t *testing.T, text string) string {
	b, _ := json.Marshal(text)
	var q strings.Builder
	for _, r := range string(b) {
		if r >= 0x7f && r <= 0x9f {
			fmt.Fprintf(&q, "\\u%04x", r)
			continue
		}
		q.WriteRune(r)
	}
	return "rules: [{respond: {text: " + q.String() + "}}]"
}

func TestTextOutputPrintsTheModelsAnswerWithoutTerminalEscapes(t *testing.T) {
	for _, tt := range escapes {
		t.Run(tt.name, func(t *testing.T) {
			rt := newRuntime(t, answering(t, tt.answer))
			var out, errb bytes.Buffer
			if code := Run(context.Background(), rt, Options{Prompt: "go", OutputFormat: FormatText}, Streams{Out: &out, Err: &errb}); code != ExitOK {
				t.Fatalf("code %d: %s", code, errb.String())
			}
			if got := out.String(); got != tt.printed+"\n" {
				t.Errorf("printed %q, want %q", got, tt.printed+"\n")
			}
		})
	}
}

func TestJSONOutputsCarryTheAnswerWholeWithEveryControlEscaped(t *testing.T) {
	for _, tt := range escapes {
		for _, format := range []string{FormatJSON, FormatStreamJSON} {
			t.Run(tt.name+" "+format, func(t *testing.T) {
				rt := newRuntime(t, answering(t, tt.answer))
				var out, errb bytes.Buffer
				if code := Run(context.Background(), rt, Options{Prompt: "go", OutputFormat: format}, Streams{Out: &out, Err: &errb}); code != ExitOK {
					t.Fatalf("code %d: %s", code, errb.String())
				}
				if i := strings.IndexFunc(out.String(), func(r rune) bool { return r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f }); i >= 0 {
					t.Fatalf("a raw control %q in the %s output at %d", out.String()[i], format, i)
				}
				found := false
				for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
					var v struct {
						Result string
						Data   struct{ Text string }
					}
					if err := json.Unmarshal([]byte(line), &v); err != nil {
						t.Fatalf("not JSON: %q: %v", line, err)
					}
					found = found || v.Result == tt.answer || v.Data.Text == tt.answer
				}
				if !found {
					t.Errorf("the %s output does not carry the answer as the model gave it", format)
				}
			})
		}
	}
}
