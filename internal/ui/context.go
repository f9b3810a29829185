package ui

import (
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/event"
)

// compactDoneMsg is the outcome of a /compact.
type compactDoneMsg struct{ err error }

// compactCommand queues a compaction of the lead's history; its
// context.compact event tells the result, a failure a note.
func (m *Model) compactCommand(instructions string) {
	if m.cfg.Backend == nil {
		return
	}
	done := make(chan error, 1)
	m.cfg.Backend.Compact(instructions, func(err error) { done <- err })
	m.later = func() tea.Msg { return compactDoneMsg{<-done} }
	m.note(noteInfo, "Compacting the conversation…")
}

func (m *Model) compactDone(msg compactDoneMsg) {
	if msg.err != nil {
		m.note(noteError, "Could not compact: "+msg.err.Error())
	}
}

// compactLine says what a compaction did.
func compactLine(d event.ContextCompactData) string {
	line := fmt.Sprintf("context compacted · %s → %s tokens", tokens(d.Before), tokens(d.After))
	if d.Trigger == event.CompactTooLong {
		line += " (the request was too long)"
	}
	return line
}

// applyCompact shows an agent's compaction: a line in a sub-agent's tree,
// a note for the lead or a teammate.
func (m *Model) applyCompact(e event.Event) {
	d, ok := event.Payload[event.ContextCompactData](e.Data)
	if !ok {
		return
	}
	m.usage.setContext(e.AgentID, contextUse{used: d.After})
	if t := m.treeByAgent[e.AgentID]; t != nil {
		t.setContext(e.AgentID, m.usage.agents[e.AgentID])
	}
	switch t := m.treeByAgent[e.AgentID]; {
	case isLead(e):
		m.note(noteInfo, "✻ "+strings.ToUpper(compactLine(d)[:1])+compactLine(d)[1:])
	case t != nil:
		t.call(e.AgentID, "✻ "+compactLine(d))
	default:
		m.note(noteInfo, fmt.Sprintf("✻ %s: %s", e.AgentID, compactLine(d)))
	}
}

// contextCommand lists each agent's context use, the lead first.
func (m *Model) contextCommand() {
	if len(m.usage.agents) == 0 {
		m.note(noteInfo, "No context measured yet: each agent's use shows after its first answer.")
		return
	}
	ids := make([]string, 0, len(m.usage.agents))
	for id := range m.usage.agents {
		if id != event.LeadID {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	if _, ok := m.usage.agents[event.LeadID]; ok {
		ids = append([]string{event.LeadID}, ids...)
	}
	var b strings.Builder
	b.WriteString("Context (tokens used of the model's window):")
	for _, id := range ids {
		c := m.usage.agents[id]
		fmt.Fprintf(&b, "\n  %-16s %s", id, tokens(c.used))
		if c.window > 0 {
			fmt.Fprintf(&b, " / %s (%d%%)", tokens(c.window), c.used*100/c.window)
		}
	}
	m.note(noteInfo, b.String())
}
