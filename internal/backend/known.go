package backend

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Info is one row of the backends table: what runs the agent, the CLI and
// npm package it comes from, the model API it speaks, how Atomic drives it
// and what Atomic can do with it. `atomic backends`, the --backend flag,
// the tree's backend tags and the observer's spans all read it (Known).
type Info struct {
	Name string `json:"name"`
	// Binary is the CLI looked up on PATH ("" for the native loop).
	Binary string `json:"binary,omitempty"`
	// Package is the npm package that installs Binary.
	Package string `json:"package,omitempty"`
	// API is the model API the CLI speaks ("anthropic" or "openai"); the
	// native loop speaks every provider's (""). A CLI in a mixed tree
	// inherits the settings of this API.
	API string `json:"api,omitempty"`
	// Drive is how Atomic runs the CLI.
	Drive string `json:"drive"`
	// Subagents: the agents it starts join the tree.
	Subagents bool `json:"subagents"`
	// Background: its sub-agents can run in the background, and stay
	// background until their real end.
	Background bool `json:"background_subagents"`
	// Interrupt: a turn (and every agent in it) can be interrupted.
	Interrupt bool `json:"interrupt"`
	// Approvals: its tool calls are put to Atomic's approval queue or
	// headless policy (Decide).
	Approvals bool `json:"approvals"`
	// Usage: it reports tokens (and cost where known) per agent.
	Usage bool `json:"usage"`
	// CancelAgent: one of its sub-agents can be stopped alone (/tasks);
	// its session is an AgentCanceller.
	CancelAgent bool `json:"cancel_one_subagent"`
	// Images: a prompt may carry images; its session is an ImageRunner.
	Images bool `json:"images"`
	// Plan: it reports its agents' plans (plan.update).
	Plan bool `json:"plan_updates"`
	// Resume: a resumed Atomic session continues its conversation
	// (Config.ResumeCLI).
	Resume bool `json:"resume"`
}

// known is the backends table, native first. Each capability is what the
// adapter really does; internal/cli's table test holds each claim to the
// adapter's code.
var known = []Info{
	{Name: Native, Drive: "Atomic's own agent loop",
		Subagents: true, Background: true, Interrupt: true, Approvals: true, Usage: true, CancelAgent: true,
		Images: true, Plan: true, Resume: true},
	{Name: ClaudeCode, Binary: "claude", Package: "@anthropic-ai/claude-code", API: "anthropic",
		Drive:     "claude -p --input-format stream-json --output-format stream-json",
		Subagents: true, Background: true, Interrupt: true, Approvals: true, Usage: true, CancelAgent: true,
		Plan: true, Resume: true},
	{Name: Codex, Binary: "codex", Package: "@openai/codex", API: "openai", Drive: "codex app-server",
		Subagents: true, Background: true, Interrupt: true, Approvals: true, Usage: true, CancelAgent: true,
		Plan: true, Resume: true},
	{Name: OpenCode, Binary: "opencode", Package: "opencode-ai", API: "openai", Drive: "opencode serve",
		Subagents: true, Background: true, Interrupt: true, Approvals: true, Usage: true, CancelAgent: true,
		Resume: true},
	{Name: Copilot, Binary: "copilot", Package: "@github/copilot", API: "openai", Drive: "the Copilot Go SDK",
		Subagents: true, Background: true, Interrupt: true, Approvals: true, Usage: true, CancelAgent: true,
		Resume: true},
}

// Known lists every backend Atomic can run, native first.
func Known() []Info { return append([]Info(nil), known...) }

// Lookup is the row of the backend called name.
func Lookup(name string) (Info, bool) {
	for _, k := range known {
		if k.Name == name {
			return k, true
		}
	}
	return Info{}, false
}

// External reports whether name is an external CLI's backend (a session's
// provider naming one says a CLI runs it).
func External(name string) bool {
	k, ok := Lookup(name)
	return ok && k.Binary != ""
}

// Names lists the backends' names as a sentence: "native, claude-code, …
// or copilot".
func Names() string {
	names := make([]string, len(known))
	for i, k := range known {
		names[i] = k.Name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// FindCLI is the binary of backend name's CLI: bin when given (it must
// exist), else the CLI on PATH. Its error is the one line a user needs:
// what is missing, and the npm package that installs it.
func FindCLI(name, bin string) (string, error) {
	info, _ := Lookup(name)
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
