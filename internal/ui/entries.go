package ui

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Markers that start transcript entries.
const (
	userMarker   = "❯ "
	resultMarker = "  ╰ "
	indent       = "  "
)

// userEntry is a prompt the user sent.
type userEntry struct {
	text  string
	cache lineCache
}

func (e *userEntry) lines(rc *renderCtx) []string {
	return e.cache.get(cacheKey{width: rc.Width}, func() []string {
		st := lipgloss.NewStyle().Foreground(rc.Theme.Text).Bold(true)
		wrapped := strings.Split(ansi.Wrap(e.text, max(rc.Width-2, 10), ""), "\n")
		out := make([]string, len(wrapped))
		for i, l := range wrapped {
			prefix := indent
			if i == 0 {
				prefix = rc.Theme.accent().Render(userMarker)
			}
			out[i] = prefix + st.Render(l)
		}
		return out
	})
}

// assistantEntry is the lead's text, streamed then complete, shown as
// Markdown. While streaming it re-renders only when the text grew.
type assistantEntry struct {
	text      string
	streaming bool
	version   int
	cache     lineCache
}

func (e *assistantEntry) append(s string) { e.text += s; e.version++ }

func (e *assistantEntry) set(s string) { e.text = s; e.version++ }

func (e *assistantEntry) lines(rc *renderCtx) []string {
	return e.cache.get(cacheKey{width: rc.Width, version: e.version}, func() []string {
		if strings.TrimSpace(e.text) == "" {
			return nil
		}
		body := rc.md.render(e.text, rc.Width-2)
		out := make([]string, len(body))
		for i, l := range body {
			prefix := indent
			if i == 0 {
				prefix = lipgloss.NewStyle().Foreground(rc.Theme.Text).Render(dot) + " "
			}
			out[i] = prefix + l
		}
		return out
	})
}

// toolState is where a tool call is.
type toolState int

const (
	toolRunning toolState = iota
	toolOK
	toolFailed
	toolCancelled
)

// toolEntry is one tool call of the lead, compact: name, the argument that
// matters, and a result summary; ctrl+o shows up to 20 lines of the result.
type toolEntry struct {
	name, subject string
	state         toolState
	result        string
	version       int
	cache         lineCache
}

// maxToolLines bounds an expanded tool result.
const maxToolLines = 20

func (e *toolEntry) lines(rc *renderCtx) []string {
	return e.cache.get(cacheKey{width: rc.Width, expanded: rc.Expanded, version: e.version}, func() []string {
		th := rc.Theme
		var dotStyle lipgloss.Style
		switch e.state {
		case toolOK:
			dotStyle = th.fg(th.Success)
		case toolFailed:
			dotStyle = th.fg(th.Danger)
		case toolCancelled:
			dotStyle = th.fg(th.Warning)
		default:
			dotStyle = th.muted()
		}
		head := dotStyle.Render(dot) + " " + th.bold().Render(e.name)
		if e.subject != "" {
			head += " " + e.subject
		}
		out := []string{fit(head, rc.Width)}
		res := strings.TrimRight(e.result, "\n")
		switch {
		case e.state == toolRunning:
			out = append(out, th.muted().Render(resultMarker+"Running…"))
		case rc.Expanded && res != "":
			ls := strings.Split(res, "\n")
			extra := 0
			if len(ls) > maxToolLines {
				ls, extra = ls[:maxToolLines], len(ls)-maxToolLines
			}
			for i, l := range ls {
				m := "    "
				if i == 0 {
					m = resultMarker
				}
				out = append(out, fit(th.muted().Render(m)+resultStyle(th, e.state).Render(l), rc.Width))
			}
			if extra > 0 {
				out = append(out, th.muted().Render("    … +"+strconv.Itoa(extra)+" lines"))
			}
		default:
			out = append(out, fit(th.muted().Render(resultMarker)+resultStyle(th, e.state).Render(summary(res))+
				th.muted().Render(moreLines(res)), rc.Width))
		}
		return out
	})
}

func resultStyle(th Theme, st toolState) lipgloss.Style {
	if st == toolFailed {
		return th.danger()
	}
	return lipgloss.NewStyle()
}

// summary is the first non-blank line of a result, or "(no output)".
func summary(res string) string {
	for line := range strings.Lines(res) {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return "(no output)"
}

// moreLines says how many lines the summary leaves out.
func moreLines(res string) string {
	n := strings.Count(res, "\n")
	if strings.TrimSpace(res) == "" || n == 0 {
		return ""
	}
	return " (+" + strconv.Itoa(n) + " lines, ctrl+o to expand)"
}

// noteKind styles a note.
type noteKind int

const (
	noteInfo noteKind = iota
	noteError
	noteSuccess
	noteWarning
)

// noteEntry is a line or block from the UI itself: command output,
// notifications, errors.
type noteEntry struct {
	kind  noteKind
	text  string
	cache lineCache
}

func (e *noteEntry) lines(rc *renderCtx) []string {
	return e.cache.get(cacheKey{width: rc.Width}, func() []string {
		th := rc.Theme
		var st lipgloss.Style
		mark := ""
		switch e.kind {
		case noteError:
			st, mark = th.danger(), th.danger().Render(dot)+" "
		case noteSuccess:
			st, mark = lipgloss.NewStyle(), th.fg(th.Success).Render(dot)+" "
		case noteWarning:
			st, mark = lipgloss.NewStyle(), th.fg(th.Warning).Render(dot)+" "
		default:
			st = th.muted()
		}
		var out []string
		for i, l := range strings.Split(ansi.Wrap(e.text, max(rc.Width-2, 10), ""), "\n") {
			prefix := indent
			if i == 0 && mark != "" {
				prefix = mark
			}
			out = append(out, prefix+st.Render(l))
		}
		return out
	})
}
