package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	md "github.com/atomic-agent/atomic/internal/markdown"
)

// markdown renders assistant text as Markdown at a given width with
// Atomic's own small renderer (internal/markdown explains why not glamour).
// Rendering is pure computation: no terminal queries, a fixed style.
type markdown struct {
	r *md.Renderer
}

// render returns the lines of text rendered for width columns, without
// leading or trailing blank lines.
func (m *markdown) render(text string, width int) []string {
	if m.r == nil {
		m.r = md.New(md.DefaultStyles())
	}
	return trimBlank(m.r.Render(text, max(width, 10)))
}

// trimBlank drops leading and trailing lines that show nothing, and
// trailing padding.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = trimPadding(l)
	}
	return lines
}

// trimPadding removes trailing spaces, also those just before a final SGR
// reset, so lines do not carry a screen width of blanks.
func trimPadding(l string) string {
	for {
		t := strings.TrimRight(l, " ")
		if strings.HasSuffix(t, "\x1b[0m") {
			inner := strings.TrimRight(strings.TrimSuffix(t, "\x1b[0m"), " ")
			if inner != strings.TrimSuffix(t, "\x1b[0m") {
				l = inner + "\x1b[0m"
				continue
			}
		}
		return t
	}
}
