package ui

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-agent/atomic/internal/event"
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
// Markdown. While it streams, the text is cut into blocks at blank lines
// outside code fences: finished blocks are rendered once and cached, and
// only the open last block re-renders as text arrives, so a long answer
// costs the same per frame as a short one. The complete text is rendered
// whole, once.
type assistantEntry struct {
	text      string
	sb        strings.Builder // backs text (see append)
	streaming bool
	// interrupted marks a message the user cut off.
	interrupted bool
	version     int
	cache       lineCache

	settled int       // bytes of text in blocks
	blocks  []mdBlock // finished blocks while streaming
	tail    lineCache // the open block
}

// mdBlock is a finished block of a streaming message.
type mdBlock struct {
	src   string
	cache lineCache
}

// append adds streamed text. The text grows in a builder, so a message
// of n deltas costs O(n), not a copy of the whole message per delta (a
// resumed session replays thousands at once).
func (e *assistantEntry) append(s string) {
	if e.sb.Len() == 0 && e.text != "" {
		e.sb.WriteString(e.text)
	}
	e.sb.WriteString(s)
	e.text = e.sb.String()
	e.version++
}

func (e *assistantEntry) set(s string) {
	e.sb.Reset()
	e.sb.WriteString(s)
	e.text = e.sb.String()
	e.version++
	e.settled, e.blocks = 0, nil
}

func (e *assistantEntry) lines(rc *renderCtx) []string {
	if e.streaming {
		return e.streamLines(rc)
	}
	return e.cache.get(cacheKey{width: rc.Width, version: e.version}, func() []string {
		out := withDot(rc, rc.md.render(e.text, rc.Width-2))
		if e.interrupted && len(out) > 0 {
			out = append(out, indent+rc.Theme.muted().Render("(interrupted)"))
		}
		return out
	})
}

// markInterrupted marks the message as cut off by the user.
func (e *assistantEntry) markInterrupted() {
	if !e.interrupted {
		e.interrupted = true
		e.version++
	}
}

// streamLines renders the finished blocks from cache and the open one anew.
func (e *assistantEntry) streamLines(rc *renderCtx) []string {
	e.settle()
	var body []string
	k := cacheKey{width: rc.Width}
	for i := range e.blocks {
		b := &e.blocks[i]
		ls := b.cache.get(k, func() []string { return rc.md.render(b.src, rc.Width-2) })
		if len(ls) == 0 {
			continue
		}
		if len(body) > 0 {
			body = append(body, "")
		}
		body = append(body, ls...)
	}
	tail := e.tail.get(cacheKey{width: rc.Width, version: e.version}, func() []string {
		return rc.md.render(e.text[e.settled:], rc.Width-2)
	})
	if len(tail) > 0 && len(body) > 0 {
		body = append(body, "")
	}
	return withDot(rc, append(body, tail...))
}

// settle moves the blocks of the open text that a blank line outside a
// code fence has closed into e.blocks.
func (e *assistantEntry) settle() {
	rest := e.text[e.settled:]
	fence := false
	start, pos := 0, 0
	for {
		nl := strings.IndexByte(rest[pos:], '\n')
		if nl < 0 {
			return // an unfinished line stays open
		}
		line := rest[pos : pos+nl]
		pos += nl + 1
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = !fence
		case t == "" && !fence && strings.TrimSpace(rest[start:pos]) != "":
			e.blocks = append(e.blocks, mdBlock{src: rest[start:pos]})
			e.settled += pos - start
			start = pos
		}
	}
}

// withDot prefixes the first line of a message with its dot and indents
// the rest.
func withDot(rc *renderCtx, body []string) []string {
	if len(body) == 0 {
		return nil
	}
	out := make([]string, len(body))
	for i, l := range body {
		prefix := indent
		if i == 0 {
			prefix = lipgloss.NewStyle().Foreground(rc.Theme.Text).Render(dot) + " "
		}
		out[i] = prefix + l
	}
	return out
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
	waiting       bool   // held for the user's approval
	progress      string // the latest tool.progress line while running
	result        string
	// plan is the checklist a todo_write call set (plan.update): the
	// entry shows it instead of the result.
	plan    []event.Todo
	version int
	cache   lineCache
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
		if e.plan != nil && e.state != toolFailed {
			return planLines(rc, dotStyle.Render(dot), e.plan)
		}
		head := dotStyle.Render(dot) + " " + th.bold().Render(e.name)
		if e.subject != "" {
			head += " " + e.subject
		}
		out := []string{fit(head, rc.Width)}
		res := strings.TrimRight(e.result, "\n")
		switch {
		case e.state == toolRunning && e.waiting:
			out = append(out, th.fg(th.Warning).Render(resultMarker+"Waiting for approval…"))
		case e.state == toolRunning && e.progress != "":
			out = append(out, fit(th.muted().Render(resultMarker+"Running… "+e.progress), rc.Width))
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
		for _, src := range strings.Split(e.text, "\n") {
			// Wrapped lines keep their source line's indentation.
			body := strings.TrimLeft(src, " ")
			lead := src[:len(src)-len(body)]
			for _, l := range strings.Split(ansi.Wrap(body, max(rc.Width-2-len(lead), 10), ""), "\n") {
				prefix := indent
				if len(out) == 0 && mark != "" {
					prefix = mark
				}
				out = append(out, prefix+st.Render(lead+l))
			}
		}
		return out
	})
}
