package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// doctorTimeout bounds all of /doctor's checks (each bounds its own
// probes shorter): a hung check is reported, not waited for.
const doctorTimeout = 30 * time.Second

// doctorMsg is /doctor's checks, run off the UI's loop.
type doctorMsg struct{ checks []Check }

// doctorCommand runs the session's checks: the provider, the key, the
// store, the sandbox, git, the external CLIs and the MCP servers.
func (m *Model) doctorCommand() {
	s := m.cfg.Session
	if s == nil {
		m.note(noteInfo, "Nothing to check in this session.")
		return
	}
	m.note(noteInfo, "Checking…")
	m.later = func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), doctorTimeout)
		defer cancel()
		return doctorMsg{s.Doctor(ctx)}
	}
}

func (m *Model) doctorDone(msg doctorMsg) {
	var b strings.Builder
	failed := 0
	b.WriteString("Doctor:")
	for _, c := range msg.checks {
		mark := "✓"
		switch {
		case !c.OK && c.Optional:
			mark = "·"
		case !c.OK:
			mark = "✗"
			failed++
		}
		fmt.Fprintf(&b, "\n  %s %s", mark, c.Name)
		if c.Detail != "" {
			b.WriteString(": " + c.Detail)
		}
		if !c.OK && c.Fix != "" {
			b.WriteString(" → " + c.Fix)
		}
	}
	kind := noteSuccess
	if failed > 0 {
		kind = noteWarning
		fmt.Fprintf(&b, "\n%d of %d checks failed", failed, len(msg.checks))
	}
	m.note(kind, b.String())
}
