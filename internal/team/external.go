package team

import (
	"fmt"
	"strings"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
)

// openCLI starts teammate t's session in the external CLI its type names
// (a mixed tree). The CLI cannot call the team's messaging tools, so its
// assignment says that each answer it ends a turn with goes to the lead,
// and messages to it arrive as its next turn.
func (m *Manager) openCLI(t *mate, model string) error {
	if m.cfg.Backends == nil {
		return fmt.Errorf("agent type %s (%s) runs on the %s backend, which this run cannot start", t.typ.Name, t.typ.Source, t.typ.Backend)
	}
	s, err := m.cfg.Backends(t.typ.Backend, backend.Config{
		SessionID: t.sessionID, AgentID: t.id, ParentID: event.LeadID, NameAgent: m.cfg.NameAgent,
		Workspace: m.cfg.Workspace, Model: model, Gate: m.cfg.Gate, Sink: childSink{m, t}, Now: m.cfg.Now,
	})
	if err != nil {
		return fmt.Errorf("agent type %s (%s): %w", t.typ.Name, t.typ.Source, err)
	}
	t.session, t.cli = s, true
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s, a teammate in team %q led by \"lead\". Your role: %s. ", t.name, t.team, t.role)
	b.WriteString("The answer you end each turn with is sent to the lead as your message; messages to you arrive as <team-message> blocks in your next turn.")
	if p := strings.TrimSpace(t.typ.Prompt); p != "" && t.typ.Source != "built-in" {
		b.WriteString("\n\n" + p)
	}
	t.prompt = b.String() + "\n\nYour assignment:\n" + t.prompt
	return nil
}
