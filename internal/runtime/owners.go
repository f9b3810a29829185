package runtime

import (
	"fmt"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
)

// leadSink is the sink of a lead on an external CLI: it records the lead's
// session as the owner of each sub-agent the CLI announces, before its
// subagent.start reaches the bus.
type leadSink struct{ r *Runtime }

func (l leadSink) Emit(e event.Event) {
	if e.Type == event.SubagentStart && e.AgentID != event.LeadID && e.AgentID != "" {
		id, r := e.AgentID, l.r
		r.owners.Register(id, bus.Owner{Kind: bus.OwnerCLI, By: event.LeadID, Cancel: func() error {
			c, ok := r.lead.(backend.AgentCanceller)
			if !ok {
				return fmt.Errorf("cannot cancel %s alone: the lead's backend stops its sub-agents only all at once (Esc)", id)
			}
			return c.CancelAgent(id)
		}})
	}
	l.r.bus.Emit(e)
}
