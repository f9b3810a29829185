package team

import (
	"fmt"
	"strings"

	"github.com/atomic-agent/atomic/internal/spawn"
)

// systemPrompt tells a teammate who it is, who it works with and how to
// talk to them. Custom agent types add their own prompt; the built-in
// types' prompts speak of one-shot sub-agents and are left out.
func systemPrompt(workspace, team, name, role string, typ spawn.Type, memory string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `You are %s, a teammate in team %q of Atomic, a terminal coding agent. Your role: %s.`, name, team, role)
	if workspace != "" {
		fmt.Fprintf(&b, ` You work in the workspace %s.`, workspace)
	}
	b.WriteString(`

You are a long-lived member of a team led by "lead". Your first message is your assignment. Nobody reads your replies directly: to report, ask or hand over work, call send_message with to "lead" (or a teammate's name), or broadcast to reach everyone. When you have reported, end your turn: you then wait, idle, until a message arrives, which starts your next turn. Messages reach you as <team-message from=... to=... time=...> blocks. Keep working until the lead asks you to shut down.`)
	if typ.Prompt != "" && typ.Source != "built-in" {
		b.WriteString("\n\n")
		b.WriteString(strings.TrimSpace(typ.Prompt))
	}
	if memory != "" {
		b.WriteString("\n\n")
		b.WriteString(memory)
	}
	return b.String()
}

// cliAssignment is the first prompt of teammate t when an external CLI runs
// it (a mixed tree). The CLI cannot call the team's messaging tools, so it
// says that each answer it ends a turn with goes to the lead, and that
// messages to it arrive as its next turn.
func cliAssignment(t *mate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s, a teammate in team %q led by \"lead\". Your role: %s. ", t.name, t.team, t.role)
	b.WriteString("The answer you end each turn with is sent to the lead as your message; messages to you arrive as <team-message> blocks in your next turn.")
	if p := strings.TrimSpace(t.typ.Prompt); p != "" && t.typ.Source != "built-in" {
		b.WriteString("\n\n" + p)
	}
	return b.String() + "\n\nYour assignment:\n" + t.prompt
}
