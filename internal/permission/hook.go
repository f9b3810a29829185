package permission

// CheckHookAllowed decides req that a PreToolUse hook allowed: as in
// Claude Code, the allow skips the prompt but not a deny: a settings deny
// rule, --disallowed-tools, plan mode or a refusal for this session still
// refuse, and what a settings ask rule, a command that cannot be known
// before it runs, or a change to the settings files or a .git directory
// asks is still asked (decided false).
func (g *Gate) CheckHookAllowed(req Request) (d Decision, decided bool) {
	line := &lineCommands{}
	if d, denied := g.settingsDeny(req, line); denied {
		return d, true
	}
	if g.settingsAsk(req, line) != "" {
		return Decision{}, false
	}
	if d, decided := g.check(req); decided {
		return d, true
	}
	return Decision{Allow: true}, true
}
