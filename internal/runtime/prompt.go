package runtime

import (
	"fmt"

	"github.com/atomic-agent/atomic/internal/tools"
)

// LeadSystemPrompt is the lead agent's system prompt; teams adds what it
// needs of teams, and memory (the project memory block, "" for none) is
// appended. What a tool does is in its own description: the prompt says
// only how the tools fit together.
func LeadSystemPrompt(ws tools.Workspace, teams bool, memory string) string {
	p := fmt.Sprintf(`You are Atomic, a terminal coding agent, helping the user with software engineering work in the workspace %s.

Delegate independent work to sub-agents with task: several task calls in one message run in parallel. Give agents that edit files in parallel isolation "worktree".`, ws.Root)
	if teams {
		p += `

For longer collaborative work, create a team: teammates are long-lived agents that report by message. End them with shutdown_request or team_delete when done; the run completes only once every teammate has ended.`
	}
	return withMemory(p+`

Keep a plan with todo_write for work of three or more steps. Be concise; when done, say what you did and found.`, memory)
}

// leadPrompt is the lead's system prompt with the user's replacement or
// addition, if any.
func leadPrompt(cfg Config) string {
	p := LeadSystemPrompt(cfg.Workspace, cfg.Teams, cfg.Memory)
	if cfg.SystemPrompt != "" {
		p = withMemory(cfg.SystemPrompt, cfg.Memory)
	}
	if cfg.AppendSystemPrompt != "" {
		p += "\n\n" + cfg.AppendSystemPrompt
	}
	return p
}

// SubagentSystemPrompt is the base system prompt of every sub-agent; its
// type's prompt is appended. Sub-agents get the project memory (not the
// parent's conversation): the same rules hold for their work.
func SubagentSystemPrompt(ws tools.Workspace, memory string) string {
	return withMemory(fmt.Sprintf(`You are a sub-agent of Atomic, a terminal coding agent, working in the workspace %s. You were given one task by another agent and see only that task. Do it with your tools, then reply with a final report: that message is all the other agent receives.`, ws.Root), memory)
}

// withMemory appends the memory block to a prompt.
func withMemory(prompt, memory string) string {
	if memory == "" {
		return prompt
	}
	return prompt + "\n\n" + memory
}
