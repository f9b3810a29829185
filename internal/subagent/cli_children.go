package subagent

import (
	"fmt"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// CancelAgent stops agent id: one of the manager's tasks, or a sub-agent
// that the external CLI running one of its tasks started (/tasks in a
// mixed tree).
func (m *Manager) CancelAgent(id string) error {
	if _, ok := m.Get(id); ok {
		return m.Cancel(id)
	}
	if r, ok := m.cfg.Agents.Agent(id); ok {
		if p, ok := m.Get(r.ParentID); ok {
			if s := p.cli.Load(); s != nil {
				if c, ok := (*s).(backend.AgentCanceller); ok {
					return c.CancelAgent(id)
				}
				return fmt.Errorf("%s runs on the %s backend, which cannot stop one of its sub-agents alone", p.ID, p.Type.Backend)
			}
		}
	}
	return m.Cancel(id) // names the known ids
}

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
