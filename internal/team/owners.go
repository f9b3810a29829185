package team

import (
	"fmt"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
)

// register records the team manager as teammate t's owner, before its
// first status goes out: cancelling it force-stops t (Stop).
func (m *Manager) register(t *mate) {
	m.cfg.Owners.Register(t.id, bus.Owner{Kind: bus.OwnerTeam, Done: t.done, Cancel: func() error {
		t.halt(stopForced)
		return nil
	}})
}

// childSink is the sink of an external CLI teammate's session: it records
// the CLI's session as the owner of each sub-agent the CLI announces,
// before its subagent.start goes out.
type childSink struct {
	m *Manager
	t *mate
}

func (c childSink) Emit(e event.Event) {
	if e.Type == event.SubagentStart && e.AgentID != c.t.id && e.AgentID != "" {
		id, t := e.AgentID, c.t
		c.m.cfg.Owners.Register(id, bus.Owner{Kind: bus.OwnerCLI, By: t.id, Cancel: func() error {
			ac, ok := t.session.(backend.AgentCanceller)
			if !ok {
				return fmt.Errorf("%s runs on the %s backend, which cannot stop one of its sub-agents alone", t.id, t.typ.Backend)
			}
			return ac.CancelAgent(id)
		}})
	}
	c.m.cfg.Sink.Emit(e)
}
