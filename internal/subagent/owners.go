package subagent

import (
	"fmt"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
)

// register records the manager as t's owner (a NATS worker's, for a task
// sent to the workers) before t's first event: cancelling it cancels the
// task's context, which also cancels it on the worker.
func (m *Manager) register(t *Task) {
	kind := bus.OwnerSubagents
	if m.remote(t) {
		kind = bus.OwnerRemote
	}
	m.cfg.Owners.Register(t.ID, bus.Owner{Kind: kind, Done: t.done, Cancel: func() error {
		t.cancel()
		return nil
	}})
}

// registerChild records, before e (its subagent.start) goes out, that the
// external CLI session running t owns the sub-agent e announces: it is
// stopped through that session, which says so when it cannot stop one
// alone.
func (m *Manager) registerChild(t *Task, e event.Event) {
	id := e.AgentID
	m.cfg.Owners.Register(id, bus.Owner{Kind: bus.OwnerCLI, By: t.ID, Cancel: func() error {
		s := t.cli.Load()
		if s == nil {
			return fmt.Errorf("the %s session of %s has ended", t.Type.Backend, t.ID)
		}
		c, ok := (*s).(backend.AgentCanceller)
		if !ok {
			return fmt.Errorf("%s runs on the %s backend, which cannot stop one of its sub-agents alone", t.ID, t.Type.Backend)
		}
		return c.CancelAgent(id)
	}})
}
