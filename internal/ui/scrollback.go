package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// Inline mode (the default): the finished head of the transcript is
// printed into the terminal's scrollback, above the live region Bubble
// Tea redraws, and is never drawn again; the live region holds the
// unfinished tail, the approval prompt, the input and the status line.

// printedMsg says a print sequence has reached the terminal.
type printedMsg struct{}

// scrollback is what inline mode keeps of the printing.
type scrollback struct {
	any      bool     // something was printed: the next entry is set apart
	outbox   []string // lines settled but not yet handed to the terminal
	printing bool     // a print sequence is under way (prints stay in order)
	sized    bool     // the terminal's size is known
	// high is the live region's tallest height since the last print or
	// resize: Bubble Tea leaves stale rows when an inline frame shrinks
	// by itself, so it is padded to high until a print moves it anyway.
	high int
	// profile is the terminal's colours: Bubble Tea downsamples its frames
	// but writes prints as they are.
	profile    colorprofile.Profile
	hasProfile bool
}

// colors writes s in the terminal's colour profile (as it is until the
// profile is known).
func (sb *scrollback) colors(s string) string {
	if !sb.hasProfile {
		return s
	}
	var b strings.Builder
	w := &colorprofile.Writer{Forward: &b, Profile: sb.profile}
	if _, err := w.WriteString(s); err != nil {
		return s
	}
	return b.String()
}

// final reports whether e can no longer change, so it may be printed.
func (m *Model) final(e entry) bool {
	switch e := e.(type) {
	case *assistantEntry:
		// The cut message still takes its complete's partial text.
		return !e.streaming && e != m.cut
	case *toolEntry:
		return e.state != toolRunning
	case *thinkingEntry:
		return e.done
	case *treeEntry:
		return m.treeFinal(e)
	case *teamEntry:
		return len(e.mates) > 0 && e.active() == 0 && !m.working()
	}
	return true // user prompts, notes and plans are written once
}

// treeFinal: every row is terminal with its session closed, and the
// lead's message that opened the tree can add no more task calls.
func (m *Model) treeFinal(t *treeEntry) bool {
	if t.recs.Len() == 0 || t.recs.Active() > 0 {
		return false
	}
	if t == m.openTree && m.openSeq == m.leadSeq && m.working() {
		return false
	}
	for _, r := range t.recs.Records() {
		if !r.Status.Terminal() || r.Session == lifecycle.SessionOpen {
			return false
		}
	}
	return true
}

// preprint sizes the model to the terminal and returns what is already
// final (welcome lines, a resumed session) for the caller to write before
// the program starts: a print that reaches the terminal before Bubble
// Tea's first frame is overwritten by it.
func (m *Model) preprint(width, height int) string {
	if m.cfg.AltScreen {
		return ""
	}
	m.width, m.height, m.sb.sized = width, height, true
	m.in.setWidth(width)
	lines, done := m.tr.settle(m.renderCtx(), m.final, m.sb.any)
	m.forget(done)
	if len(lines) == 0 {
		return ""
	}
	m.sb.any = true
	return m.sb.colors(strings.Join(lines, "\n") + "\n")
}

// liveCap is the most lines the live region shows; the rest of the
// screen is room for a print chunk, so a print never scrolls the live
// region itself into the scrollback.
func (m *Model) liveCap() int { return max(m.height-m.printChunk(), 1) }

// printChunk is the most lines one print hands the terminal.
func (m *Model) printChunk() int { return max(m.height/3, 1) }

// flush prints the entries that became final, in order.
func (m *Model) flush() tea.Cmd {
	if m.cfg.AltScreen || !m.sb.sized {
		return nil
	}
	lines, done := m.tr.settle(m.renderCtx(), m.final, m.sb.any)
	m.forget(done)
	m.queue(lines)
	return m.drain(nil)
}

// forget lets go of printed entries that events could still reach: a
// later task call or teammate starts a new tree below instead.
func (m *Model) forget(done []entry) {
	for _, e := range done {
		switch e {
		case m.openTree:
			m.openTree = nil
		case m.team:
			m.team = nil
		}
	}
}

func (m *Model) queue(lines []string) {
	if len(lines) > 0 {
		m.sb.outbox = append(m.sb.outbox, lines...)
		m.sb.any = true
	}
}

// drain hands the outbox to the terminal as one sequence of prints,
// then runs then (nil: reports printedMsg). A print waits while one is
// under way or while the live region is too tall to leave room for it.
func (m *Model) drain(then tea.Cmd) tea.Cmd {
	if m.sb.printing || len(m.sb.outbox) == 0 && then == nil || len(m.bottom()) > m.liveCap() && then == nil {
		return nil
	}
	var cmds []tea.Cmd
	for n := m.printChunk(); len(m.sb.outbox) > 0; {
		k := min(n, len(m.sb.outbox))
		cmds = append(cmds, tea.Println(m.sb.colors(strings.Join(m.sb.outbox[:k], "\n"))))
		m.sb.outbox = m.sb.outbox[k:]
	}
	if then == nil {
		then = func() tea.Msg { return printedMsg{} }
	}
	m.sb.printing, m.sb.high = true, 0
	return tea.Sequence(append(cmds, then)...)
}

// quitCmd ends the program. Inline, the whole transcript goes to the
// scrollback first, its unfinished tail as it stands; the input and
// status line stay as the last frame.
func (m *Model) quitCmd() tea.Cmd {
	if m.cfg.AltScreen {
		return tea.Quit
	}
	m.queue(m.tr.tail(m.renderCtx(), m.sb.any))
	m.tr.printed = len(m.tr.entries)
	return m.drain(tea.Quit)
}

// inlineFrame is the live region: the unprinted tail above the bottom
// block, its bottom lines when it is taller than liveCap.
func (m *Model) inlineFrame() string {
	bottom := m.bottom()
	lines := append(m.tr.tail(m.renderCtx(), m.sb.any), bottom...)
	limit := max(m.liveCap(), min(len(bottom), m.height))
	if len(lines) > limit {
		lines = lines[len(lines)-limit:]
	}
	if pad := min(m.sb.high, limit) - len(lines); pad > 0 {
		lines = append(make([]string, pad), lines...)
	}
	m.sb.high = max(m.sb.high, len(lines))
	return strings.Join(lines, "\n")
}
