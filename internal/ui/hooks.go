package ui

import (
	"fmt"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/termtext"
)

// hookLine says what a hook run did, in one line.
func hookLine(d event.HookRunData) string {
	what := d.Event
	if d.Tool != "" {
		what += " " + d.Tool
	}
	line := fmt.Sprintf("hook %s · %s · %s", what, oneLine(d.Command), d.Outcome)
	if d.Message != "" {
		line += ": " + oneLine(d.Message)
	}
	return termtext.Sanitize(line) + fmt.Sprintf(" (%d ms)", d.DurationMS)
}

// applyHook shows a hook run as a dim line: in a sub-agent's tree for its
// hooks, a note for the lead's and a teammate's.
func (m *Model) applyHook(e event.Event) {
	d, ok := event.Payload[event.HookRunData](e.Data)
	if !ok {
		return
	}
	switch t := m.treeByAgent[e.AgentID]; {
	case isLead(e):
		m.note(noteInfo, "⚓ "+hookLine(d))
	case t != nil:
		t.call(e.AgentID, "⚓ "+hookLine(d))
	default:
		m.note(noteInfo, fmt.Sprintf("⚓ %s: %s", e.AgentID, hookLine(d)))
	}
}
