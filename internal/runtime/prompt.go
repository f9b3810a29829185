package runtime

import (
	"fmt"
	"strconv"
	"strings"

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

// withImageNote is a prompt's text as the journal keeps it: with a note
// of its images, if any. SplitImageNote undoes it.
func withImageNote(prompt string, n int) string {
	switch n {
	case 0:
		return prompt
	case 1:
		return strings.TrimSpace(prompt + " [1 image]")
	}
	return strings.TrimSpace(fmt.Sprintf("%s [%d images]", prompt, n))
}

// SplitImageNote splits a saved prompt into its text and the number of
// images its note counts (0 without a note), so a replay can put the
// images from the lead's history back in its place.
func SplitImageNote(saved string) (text string, n int) {
	rest, ok := strings.CutSuffix(saved, "]")
	if !ok {
		return saved, 0
	}
	i := strings.LastIndex(rest, "[")
	if i < 0 {
		return saved, 0
	}
	count, unit, _ := strings.Cut(rest[i+1:], " ")
	n, err := strconv.Atoi(count)
	want := "images"
	if n == 1 {
		want = "image"
	}
	if err != nil || n < 1 || unit != want || (i > 0 && rest[i-1] != ' ') {
		return saved, 0
	}
	return strings.TrimSuffix(rest[:i], " "), n
}
