package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-agent/atomic/internal/event"
)

// thinkingMarker starts the lead's thinking line.
const thinkingMarker = "∴ "

// thinkingEntry is the lead's thinking before a message: a dim
// "thinking…" line while it streams, "thought" once the model moved on;
// ctrl+o shows its text. It is not the answer's text.
type thinkingEntry struct {
	sb      strings.Builder
	done    bool
	version int
	cache   lineCache
}

func (e *thinkingEntry) append(s string) {
	e.sb.WriteString(s)
	e.version++
}

func (e *thinkingEntry) discard() {
	e.sb.Reset()
	e.version++
}

func (e *thinkingEntry) finish() {
	e.done = true
	e.version++
}

func (e *thinkingEntry) lines(rc *renderCtx) []string {
	return e.cache.get(cacheKey{width: rc.Width, expanded: rc.Expanded, version: e.version}, func() []string {
		st := rc.Theme.muted().Faint(true)
		head := "thinking…"
		if e.done {
			head = "thought"
		}
		if !rc.Expanded {
			if e.sb.Len() > 0 {
				head += " (ctrl+o to show)"
			}
			return []string{st.Render(thinkingMarker + head)}
		}
		out := []string{st.Render(thinkingMarker + head)}
		text := strings.TrimSpace(e.sb.String())
		for _, src := range strings.Split(text, "\n") {
			for _, l := range strings.Split(ansi.Wrap(src, max(rc.Width-4, 10), ""), "\n") {
				out = append(out, indent+st.Italic(true).Render(l))
			}
		}
		return out
	})
}

// endsThinking reports whether an event of the lead's means its thinking
// is over: the answer began, a tool was called, the turn ended.
func endsThinking(t event.Type) bool {
	switch t {
	case event.MessageDelta, event.MessageComplete, event.ToolStart, event.TurnEnd,
		event.Error, event.Interrupt, event.Reset:
		return true
	}
	return false
}

// think handles the lead's thinking.delta.
func (m *Model) think(d event.ThinkingDeltaData) {
	if m.thinking == nil {
		if d.Discard || d.Text == "" {
			return
		}
		m.thinking = &thinkingEntry{}
		m.tr.add(m.thinking)
	}
	if d.Discard {
		m.thinking.discard()
	}
	m.thinking.append(d.Text)
}

// endThinking marks the lead's thinking as over.
func (m *Model) endThinking() {
	if m.thinking != nil {
		m.thinking.finish()
		m.thinking = nil
	}
}
