package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func plain(text string, width int) string {
	lines := New(DefaultStyles()).Render(text, width)
	for i, l := range lines {
		lines[i] = ansi.Strip(l)
	}
	return strings.Join(lines, "\n")
}

func TestRenderElements(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"heading", "## Results ##", "Results"},
		{"emphasis and code", "Use **bold**, *it* and `go test`.", "Use bold, it and go test."},
		{"link", "See [the docs](https://x.dev).", "See the docs (https://x.dev)."},
		{"bullets", "- one\n- two", "• one\n• two"},
		{"ordered", "1. first\n2. second", "1. first\n2. second"},
		{"quote", "> careful", "│ careful"},
		{"rule", "---", strings.Repeat("─", 40)},
		{"code block kept verbatim", "```go\nfunc main() {\n\tx := 1\n}\n```", "  func main() {\n      x := 1\n  }"},
		{"paragraph lines joined", "a\nb", "a b"},
		{"blank lines collapse", "a\n\n\n\nb", "a\n\nb"},
		{"snake_case is not italic", "call my_var_name now", "call my_var_name now"},
		{"globs stay literal", "Files matching **/*.md and *.go: 3", "Files matching **/*.md and *.go: 3"},
		{"emphasis at line start and before punctuation", "*one*, **two**.", "one, two."},
		{"arithmetic is not italic", "2 * 3 * 4", "2 * 3 * 4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := plain(c.in, 80); got != c.want {
				t.Fatalf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

func TestRenderWrapsToWidthWithHangingIndent(t *testing.T) {
	got := New(DefaultStyles()).Render("- "+strings.Repeat("word ", 20), 30)
	for i, l := range got {
		if w := ansi.StringWidth(l); w > 30 {
			t.Fatalf("line %d is %d wide: %q", i, w, l)
		}
		if i > 0 && !strings.HasPrefix(ansi.Strip(l), "  ") {
			t.Fatalf("continuation not indented: %q", l)
		}
	}
	if len(got) < 3 {
		t.Fatalf("expected wrapping, got %d lines", len(got))
	}
}

func TestRenderStylesEmphasis(t *testing.T) {
	out := strings.Join(New(DefaultStyles()).Render("**x**", 20), "")
	if !strings.Contains(out, "\x1b[") {
		t.Fatalf("bold not styled: %q", out)
	}
}

func BenchmarkRender(b *testing.B) {
	text := strings.Repeat("## Title\n\nSome **bold** text with `code` and a [link](https://x.dev).\n\n- item one\n- item two\n\n```go\nfunc f() {}\n```\n", 5)
	r := New(DefaultStyles())
	for i := 0; i < b.N; i++ {
		r.Render(text, 100)
	}
}
