package backend

// Info describes one backend for `atomic backends`: the CLI that runs it,
// the npm package that provides that CLI, and what Atomic can do with it.
type Info struct {
	Name string `json:"name"`
	// Binary is the CLI looked up on PATH ("" for the native loop).
	Binary string `json:"binary,omitempty"`
	// Package is the npm package that installs Binary.
	Package string `json:"package,omitempty"`
	// Background: its sub-agents can run in the background, and stay
	// background until their real end.
	Background bool `json:"background_subagents"`
	// Interrupt: a turn (and every agent in it) can be interrupted.
	Interrupt bool `json:"interrupt"`
	// Approvals: its tool calls are put to Atomic's approval queue or
	// headless policy.
	Approvals bool `json:"approvals"`
	// Usage: it reports tokens (and cost where known) per agent.
	Usage bool `json:"usage"`
	// CancelAgent: one of its sub-agents can be stopped alone (/tasks).
	CancelAgent bool `json:"cancel_one_subagent"`
}

// Known lists every backend Atomic can run, native first.
func Known() []Info {
	return []Info{
		{Name: Native, Background: true, Interrupt: true, Approvals: true, Usage: true, CancelAgent: true},
		{Name: ClaudeCode, Binary: "claude", Package: "@anthropic-ai/claude-code",
			Background: true, Interrupt: true, Approvals: true, Usage: true, CancelAgent: true},
		{Name: Codex, Binary: "codex", Package: "@openai/codex",
			Background: true, Interrupt: true, Approvals: true, Usage: true, CancelAgent: true},
		{Name: OpenCode, Binary: "opencode", Package: "opencode-ai",
			Background: true, Interrupt: true, Approvals: true, Usage: true, CancelAgent: true},
		{Name: Copilot, Binary: "copilot", Package: "@github/copilot",
			Background: true, Interrupt: true, Approvals: true, Usage: true, CancelAgent: true},
	}
}
