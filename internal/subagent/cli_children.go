package subagent

import (
	"github.com/atomic-agent/atomic/internal/event"
)

// openChildren reports whether an agent that id started has not yet
// reported its end.
func (m *Manager) openChildren(id string) bool { return m.cfg.Agents.OpenChild(id) }

// wakeOn reports the events after which a CLI session may have a turn to
// carry or a sub-agent that ended.
func wakeOn(t event.Type) bool {
	switch t {
	case event.SubagentComplete, event.MessageComplete, event.TurnEnd:
		return true
	}
	return false
}
