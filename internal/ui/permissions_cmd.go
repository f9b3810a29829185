package ui

import (
	"fmt"
	"strings"
)

const permissionsUsage = "Usage: /permissions, /permissions allow RULE, /permissions deny RULE (RULE as --allowed-tools spells it: bash(go test:*), edit, mcp__github)"

// permissionsCommand lists the rules in force and where each comes from,
// or adds one for this session.
func (m *Model) permissionsCommand(args []string) {
	s := m.cfg.Session
	if s == nil {
		m.note(noteInfo, "No permission rules in this session.")
		return
	}
	if len(args) > 0 {
		verb := strings.ToLower(args[0])
		if len(args) < 2 || verb != "allow" && verb != "deny" {
			m.note(noteError, permissionsUsage)
			return
		}
		rule := strings.Join(args[1:], " ")
		add, done := s.AllowRule, "Allowed %s for this session (deny rules and plan mode still hold)."
		if verb == "deny" {
			add, done = s.DenyRule, "Denied %s for this session."
		}
		if err := add(rule); err != nil {
			m.note(noteError, fmt.Sprintf("Could not %s %s: %v", verb, rule, err))
			return
		}
		m.note(noteSuccess, fmt.Sprintf(done, rule))
		return
	}
	mode, rules := s.Permissions()
	var b strings.Builder
	fmt.Fprintf(&b, "Permissions · mode %s (deny wins, then ask, then allow):", mode)
	if len(rules) == 0 {
		b.WriteString("\n  no rules: edits and commands are asked")
	}
	for _, r := range rules {
		fmt.Fprintf(&b, "\n  %-5s %s · %s", r.Kind, r.Rule, r.Source)
		if r.Note != "" {
			fmt.Fprintf(&b, "\n        %s", r.Note)
		}
	}
	b.WriteString("\n/permissions allow RULE or deny RULE adds one for this session")
	m.note(noteInfo, b.String())
}
