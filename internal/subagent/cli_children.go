package subagent

import (
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// openChildren reports whether an agent that id started has not yet
// reported its end.
func (m *Manager) openChildren(id string) bool {
	for _, r := range m.cfg.Agents.Agents() {
		if r.ParentID == id && (!r.Status.Terminal() || r.Session == lifecycle.SessionOpen) {
			return true
		}
	}
	return false
}

// wakeOn reports the events after which a CLI session may have a turn to
// carry or a sub-agent that ended.
func wakeOn(t event.Type) bool {
	switch t {
	case event.SubagentComplete, event.MessageComplete, event.TurnEnd:
		return true
	}
	return false
}
