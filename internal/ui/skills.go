package ui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// SkillCommand is a skill offered as a slash command ("/name args"), as
// Claude Code offers skills beside the command files.
type SkillCommand struct {
	Name, Description, Scope string
}

// Skills are the run's skills for the chat's slash commands.
type Skills interface {
	List() []SkillCommand
	// Expand turns "/name args" naming a skill into the lead's prompt:
	// the skill loaded as the skill tool loads it; start grants its
	// allowed-tools to the lead, run as the prompt's turn starts (they
	// end with it). ok is false for any other text.
	Expand(text string) (prompt string, start func(), ok bool, err error)
}

// skillShadowed reports whether a built-in or a command file takes the
// skill's name: that one runs (the ACP menu leaves such a skill out).
func (m *Model) skillShadowed(name string) bool {
	if _, ok := m.cfg.Commands.Lookup(name); ok {
		return true
	}
	return slices.Contains(BuiltinCommands(), "/"+strings.ToLower(name))
}

func (m *Model) skillList() []SkillCommand {
	if m.cfg.Skills == nil {
		return nil
	}
	return m.cfg.Skills.List()
}

// skillHelp lists the skills for /help, naming any a command hides.
func (m *Model) skillHelp() string {
	all := m.skillList()
	if len(all) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nSkills (/name args loads one for the lead):")
	for _, sk := range all {
		d := oneLine(sk.Description) + " (skill, " + sk.Scope + ")"
		if m.skillShadowed(sk.Name) {
			d = "not invocable here: the command /" + sk.Name + " runs instead"
		}
		fmt.Fprintf(&b, "\n  %-19s %s", "/"+sk.Name, d)
	}
	return b.String()
}

// skillSuggestions are the skills starting with prefix for the menu; a
// command's row in rows that hides a skill of its name says so.
func (m *Model) skillSuggestions(prefix string, rows []suggestion) []suggestion {
	var out []suggestion
	for _, sk := range m.skillList() {
		name := "/" + sk.Name
		if !strings.HasPrefix(strings.ToLower(name), prefix) {
			continue
		}
		if !m.skillShadowed(sk.Name) {
			out = append(out, suggestion{name, strings.TrimSpace(oneLine(sk.Description) + " (skill, " + sk.Scope + ")")})
			continue
		}
		for i := range rows {
			if strings.EqualFold(rows[i].insert, name) {
				rows[i].detail += " · runs instead of the skill " + sk.Name
			}
		}
	}
	return out
}

// skillCommand sends the lead an invoked skill, loaded off the UI's loop
// (it reads the skill's files). false: text names no skill.
func (m *Model) skillCommand(text string) bool {
	sk := m.cfg.Skills
	if sk == nil {
		return false
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.Fields(text)[0], "/"), " ")
	if !slices.ContainsFunc(m.skillList(), func(s SkillCommand) bool { return strings.EqualFold(s.Name, name) }) {
		return false
	}
	m.later = func() tea.Msg {
		p, start, _, err := sk.Expand(text)
		return commandReadyMsg{typed: text, prompt: p, err: err, start: start}
	}
	return true
}
