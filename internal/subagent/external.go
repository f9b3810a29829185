package subagent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/atomic-agent/atomic/internal/agent"
	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// runBackend runs t as a fresh session of the external CLI its type names
// (a mixed tree): it is given only the task prompt, after the type's own
// instructions. Its events, and its own sub-agents one level down, reach
// the bus through the task's progress sink. It ends once the CLI has no
// turn to carry and none of its own sub-agents is still open, so a CLI
// sub-agent's background work is never cut off by its first answer.
func (m *Manager) runBackend(ctx context.Context, t *Task) (*agent.Result, error) {
	if m.cfg.Backends == nil {
		return nil, fmt.Errorf("agent type %s (%s) runs on the %s backend, which this run cannot start",
			t.Type.Name, t.Type.Source, t.Type.Backend)
	}
	wake := make(chan struct{}, 1)
	sink := &progressSink{m: m, t: t, set: m.cfg.Tools, wake: wake}
	ws := m.cfg.Workspace
	if tree := t.tree(); tree != nil {
		ws = tree.Root // the CLI's working directory: its tools are rooted there
		if err := t.awaitFilled(); err != nil {
			return nil, err
		}
	}
	s, err := m.cfg.Backends(t.Type.Backend, backend.Config{
		SessionID: t.SessionID, AgentID: t.ID, ParentID: t.Spec.ParentID, NameAgent: m.Name,
		Workspace: ws, Model: t.Model, Gate: m.cfg.Gate, Sink: sink, Now: m.cfg.Now,
	})
	if err != nil {
		return nil, fmt.Errorf("agent type %s (%s): %w", t.Type.Name, t.Type.Source, err)
	}
	t.cli.Store(&s)
	defer func() {
		t.cli.Store(nil)
		s.Close()
	}()
	prompt := t.Spec.Prompt
	if p := strings.TrimSpace(t.Type.Prompt); p != "" {
		prompt = p + "\n\n" + prompt
	}
	res, err := s.Run(ctx, prompt)
	for err == nil {
		if s.Pending() {
			var r *agent.Result
			if r, err = s.Run(ctx, ""); r != nil && strings.TrimSpace(r.Text) != "" {
				res = r
			}
			continue
		}
		if !m.openChildren(t.ID) {
			break
		}
		select {
		case <-wake:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errors.New("the session returned no result")
	}
	return res, nil
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
