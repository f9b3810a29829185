package backend

import (
	"fmt"
	"os"
	"os/exec"
)

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

// FindCLI is the binary of backend name's CLI: bin when given (it must
// exist), else the CLI on PATH. Its error is the one line a user needs:
// what is missing, and the npm package that installs it.
func FindCLI(name, bin string) (string, error) {
	var info Info
	for _, k := range Known() {
		if k.Name == name {
			info = k
		}
	}
	if info.Binary == "" {
		return "", fmt.Errorf("%s has no CLI", name)
	}
	if bin != "" {
		if _, err := os.Stat(bin); err != nil {
			if pe, ok := err.(*os.PathError); ok {
				err = pe.Err
			}
			return "", fmt.Errorf("%s backend: cannot run %s: %w", name, bin, err)
		}
		return bin, nil
	}
	p, err := exec.LookPath(info.Binary)
	if err != nil {
		return "", fmt.Errorf("%s backend: the %s CLI is not on PATH; install it with `npm install -g %s` or name it with --backend-bin",
			name, info.Binary, info.Package)
	}
	return p, nil
}
