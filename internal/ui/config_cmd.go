package ui

import (
	"fmt"
	"strings"
)

// configCommand shows the effective settings and where each came from.
func (m *Model) configCommand() {
	if m.cfg.Session == nil {
		m.note(noteInfo, "No configuration in this session.")
		return
	}
	rows := m.cfg.Session.Settings()
	w := 0
	for _, r := range rows {
		w = max(w, len(r.Name))
	}
	var b strings.Builder
	b.WriteString("Config (value · where it comes from):")
	for _, r := range rows {
		fmt.Fprintf(&b, "\n  %-*s %s · %s", w, r.Name, r.Value, r.From)
	}
	m.note(noteInfo, b.String())
}
