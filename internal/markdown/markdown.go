// Package markdown renders the Markdown that models write (headings,
// emphasis, inline code, fenced code blocks, lists, quotes, links, rules) as
// styled terminal lines at a given width. It is deliberately small: a full
// renderer (glamour) pulls in a syntax highlighter whose package init costs
// ~9 MB and whose use of text/template disables the linker's dead-code
// elimination, which doubled Atomic's binary and broke the startup budgets.
package markdown

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// Styles are the looks of each element.
type Styles struct {
	Heading, Bold, Italic, Code, CodeBlock, Quote, Link, Rule, Bullet lipgloss.Style
}

// DefaultStyles suit a dark or light terminal.
func DefaultStyles() Styles {
	accent := lipgloss.Color("#7D9CFF")
	muted := lipgloss.Color("#8A8A8A")
	code := lipgloss.Color("#E5C07B")
	return Styles{
		Heading:   lipgloss.NewStyle().Bold(true).Foreground(accent),
		Bold:      lipgloss.NewStyle().Bold(true),
		Italic:    lipgloss.NewStyle().Italic(true),
		Code:      lipgloss.NewStyle().Foreground(code),
		CodeBlock: lipgloss.NewStyle().Foreground(code),
		Quote:     lipgloss.NewStyle().Foreground(muted),
		Link:      lipgloss.NewStyle().Underline(true).Foreground(accent),
		Rule:      lipgloss.NewStyle().Foreground(muted),
		Bullet:    lipgloss.NewStyle().Foreground(accent),
	}
}

// Renderer renders Markdown. The zero value has no styles (plain text);
// use New for DefaultStyles.
type Renderer struct{ s Styles }

// New returns a Renderer with st.
func New(st Styles) *Renderer { return &Renderer{s: st} }

var (
	heading = lazy.Regexp{Expr: `^(#{1,6})\s+(.*?)\s*#*\s*$`}
	bullet  = lazy.Regexp{Expr: `^(\s*)([-*+])\s+(.*)$`}
	ordered = lazy.Regexp{Expr: `^(\s*)(\d{1,9}[.)])\s+(.*)$`}
	rule    = lazy.Regexp{Expr: `^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$`}
	fence   = lazy.Regexp{Expr: "^\\s{0,3}(```+|~~~+)\\s*([^`\\s]*)"}
	// Emphasis must open after a line start, space or opening bracket and
	// close before a space, punctuation or the end (CommonMark's flanking
	// rules, roughly), so globs like **/*.go stay literal.
	inlineRe = lazy.Regexp{Expr: "`[^`]+`" +
		`|(?:^|[\s(\[])(?:\*\*[^*\s](?:[^*]*[^*\s])?\*\*|__[^_\s](?:[^_]*[^_\s])?__|\*[^*\s](?:[^*]*[^*\s])?\*|_[^_\s](?:[^_]*[^_\s])?_)(?:$|[\s.,;:!?)\]])` +
		`|\[[^\]]+\]\([^)\s]+\)`}
)

// Render returns text's lines rendered for width columns.
func (r *Renderer) Render(text string, width int) []string {
	width = max(width, 10)
	var out []string
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, r.wrap(r.inline(strings.Join(para, " ")), width, "", "")...)
			para = para[:0]
		}
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := fence.Get().FindStringSubmatch(l); m != nil {
			flush()
			marker := m[1]
			i++
			for ; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), marker); i++ {
				for _, w := range strings.Split(ansi.Hardwrap(expandTabs(lines[i]), width-2, true), "\n") {
					out = append(out, "  "+r.s.CodeBlock.Render(w))
				}
			}
			continue
		}
		trimmed := strings.TrimSpace(l)
		switch {
		case trimmed == "":
			flush()
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
		case heading.Get().MatchString(l):
			flush()
			m := heading.Get().FindStringSubmatch(l)
			out = append(out, r.wrap(r.s.Heading.Render(stripInline(m[2])), width, "", "")...)
		case rule.Get().MatchString(l):
			flush()
			out = append(out, r.s.Rule.Render(strings.Repeat("─", min(width, 40))))
		case strings.HasPrefix(trimmed, ">"):
			flush()
			q := strings.TrimSpace(strings.TrimPrefix(trimmed, ">"))
			bar := r.s.Quote.Render("│ ")
			out = append(out, r.wrap(r.s.Quote.Render(r.inline(q)), width, bar, bar)...)
		case bullet.Get().MatchString(l) && !rule.Get().MatchString(l):
			flush()
			m := bullet.Get().FindStringSubmatch(l)
			ind := strings.Repeat(" ", len(expandTabs(m[1])))
			out = append(out, r.wrap(r.inline(m[3]), width, ind+r.s.Bullet.Render("•")+" ", ind+"  ")...)
		case ordered.Get().MatchString(l):
			flush()
			m := ordered.Get().FindStringSubmatch(l)
			ind := strings.Repeat(" ", len(expandTabs(m[1])))
			out = append(out, r.wrap(r.inline(m[3]), width, ind+r.s.Bullet.Render(m[2])+" ", ind+strings.Repeat(" ", len(m[2])+1))...)
		case strings.HasPrefix(trimmed, "|"):
			flush()
			out = append(out, ansi.Truncate(l, width, "…"))
		default:
			para = append(para, trimmed)
		}
	}
	flush()
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// wrap word-wraps s to width, the first line after first, the rest after
// rest (both already styled; their visible width counts).
func (r *Renderer) wrap(s string, width int, first, rest string) []string {
	w := width - max(ansi.StringWidth(first), ansi.StringWidth(rest))
	lines := strings.Split(ansi.Wrap(s, max(w, 5), ""), "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return lines
}

// inline styles emphasis, code spans and links.
func (r *Renderer) inline(s string) string {
	return inlineRe.Get().ReplaceAllStringFunc(s, func(m string) string {
		// Emphasis matches carry the boundary characters around them.
		lead, trail := "", ""
		if m[0] != '`' && m[0] != '[' {
			if c := m[0]; c == ' ' || c == '\t' || c == '(' || c == '[' || c == '\n' {
				lead, m = m[:1], m[1:]
			}
			if c := m[len(m)-1]; c != '*' && c != '_' {
				trail, m = m[len(m)-1:], m[:len(m)-1]
			}
			return lead + r.emphasis(m) + trail
		}
		switch {
		case strings.HasPrefix(m, "`"):
			return r.s.Code.Render(strings.Trim(m, "`"))
		case strings.HasPrefix(m, "["):
			i := strings.Index(m, "](")
			label, url := m[1:i], m[i+2:len(m)-1]
			if label == url {
				return r.s.Link.Render(url)
			}
			return r.s.Link.Render(label) + " (" + url + ")"
		}
		return m
	})
}

// emphasis styles **bold**, __bold__, *italic* and _italic_.
func (r *Renderer) emphasis(m string) string {
	if strings.HasPrefix(m, "**") || strings.HasPrefix(m, "__") {
		return r.s.Bold.Render(m[2 : len(m)-2])
	}
	return r.s.Italic.Render(m[1 : len(m)-1])
}

// stripInline drops emphasis markers (headings are styled whole).
func stripInline(s string) string {
	return strings.NewReplacer("**", "", "__", "", "`", "").Replace(s)
}

func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }
