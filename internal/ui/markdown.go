package ui

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders assistant text as Markdown at a given width. It keeps one
// glamour renderer per width (building one is costly; resizes are rare).
// Rendering is pure computation: no terminal queries, a fixed dark style.
type markdown struct {
	width int
	r     *glamour.TermRenderer
}

// render returns the lines of text rendered for width columns, without
// leading or trailing blank lines. If glamour fails, the text is word-wrapped
// as is: nothing the model wrote is lost.
func (m *markdown) render(text string, width int) []string {
	width = max(width, 10)
	if m.r == nil || m.width != width {
		style := styles.DarkStyleConfig
		zero := uint(0)
		style.Document.Margin = &zero
		style.Document.BlockPrefix = ""
		style.Document.BlockSuffix = ""
		r, err := glamour.NewTermRenderer(glamour.WithStyles(style), glamour.WithWordWrap(width))
		if err != nil {
			return plainLines(text, width)
		}
		m.r, m.width = r, width
	}
	out, err := m.r.Render(text)
	if err != nil {
		return plainLines(text, width)
	}
	return trimBlank(strings.Split(out, "\n"))
}

// plainLines word-wraps text to width.
func plainLines(text string, width int) []string {
	return trimBlank(strings.Split(ansi.Wrap(text, width, ""), "\n"))
}

// trimBlank drops leading and trailing lines that show nothing, and the
// padding glamour adds at the end of lines.
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
