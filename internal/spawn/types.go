package spawn

// Agent types: the kinds of agent Open resolves. The built-in
// general-purpose and explore types, and custom types from Markdown files
// with YAML front matter (name, description, tools, model, backend, …)
// in the .claude/agents and .atomic/agents folders (LoadTypes).

import (
	"fmt"
	"sort"
	"strings"

	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/provider"
)

// Type is one kind of sub-agent.
type Type struct {
	Name        string
	Description string
	// Tools lists the tools the agent gets; nil means every tool but the
	// orchestration ones (task and its companions).
	Tools []string
	// Model overrides the parent's model; empty inherits it. On another
	// backend it is passed to that CLI as is.
	Model string
	// Effort is the agent's thinking level (effort: in the file); empty
	// inherits the lead's.
	Effort provider.Effort
	// Backend names where the agent runs (backend: in the file): empty or
	// native for Atomic's own loop, else an external CLI (claude-code,
	// codex, …) in a fresh session of its own.
	Backend string
	// Isolation is Worktree (isolation: worktree in the file, Claude
	// Code's field) for an agent that works in a git worktree of its own;
	// empty works in the lead's tree.
	Isolation string
	// RunsOn is Workers (runs_on: workers in the file) for an agent sent
	// to remote workers when the run has a NATS server; empty runs here
	// unless the run sends every task to workers.
	RunsOn string
	// ReadOnlyMCP gives the agent, beside Tools, the MCP tools whose
	// server marks them read-only (annotations readOnlyHint): the
	// built-in explore type's, whose work changes nothing.
	ReadOnlyMCP bool
	// Prompt is added to the sub-agent's system prompt.
	Prompt string
	// Skills are the skills (skills: in the file) whose bodies are
	// preloaded into Prompt when the run starts (package skills).
	Skills []string
	// Source says where the type was defined: "built-in" or a file path.
	Source string
	// Disabled is set by disabled: true in the file: it is not registered.
	Disabled bool
	// Hooks are the file's hooks: (Claude Code's settings shape), run
	// while an agent of this type runs natively, beside the settings'.
	Hooks hooks.Config
}

// External reports whether t runs on another backend than Atomic's own
// loop (an external CLI, in a fresh session of its own).
func (t Type) External() bool { return t.Backend != "" && t.Backend != "native" }

// Worktree is the one isolation: a git worktree of the agent's own.
const Worktree = "worktree"

// Workers is the runs_on value of a type sent to remote workers.
const Workers = "workers"

// Built-in type names.
const (
	GeneralPurpose = "general-purpose"
	Explore        = "explore"
)

// Builtins returns the built-in types.
func Builtins() []Type {
	return []Type{
		{
			Name:        GeneralPurpose,
			Description: "Research, code search and multi-step work, with every tool.",
			Source:      "built-in",
			Prompt:      "You are a general-purpose sub-agent: do the task, then report concisely what you did and found.",
		},
		{
			Name:        Explore,
			Description: "Fast and read-only (read, glob, grep, ls): finds files and code, answers questions about them.",
			Tools:       []string{"read", "glob", "grep", "ls"},
			ReadOnlyMCP: true,
			Source:      "built-in",
			Prompt:      "You are an Explore sub-agent, read-only: search and read, then sum up your findings citing file paths.",
		},
	}
}

// Registry holds the known types; later definitions of a name replace
// earlier ones (project over user over built-in).
type Registry struct {
	types map[string]Type
}

// NewRegistry returns a registry with the built-ins and then types.
func NewRegistry(types ...Type) *Registry {
	r := &Registry{types: map[string]Type{}}
	for _, t := range Builtins() {
		r.Add(t)
	}
	for _, t := range types {
		r.Add(t)
	}
	return r
}

// Add registers t, replacing a type of the same name.
func (r *Registry) Add(t Type) { r.types[strings.ToLower(t.Name)] = t }

// Get finds a type by name, case-insensitively.
func (r *Registry) Get(name string) (Type, bool) {
	t, ok := r.types[strings.ToLower(strings.TrimSpace(name))]
	return t, ok
}

// Lookup is Get with an error that lists the known names.
func (r *Registry) Lookup(name string) (Type, error) {
	if name == "" {
		name = GeneralPurpose
	}
	if t, ok := r.Get(name); ok {
		return t, nil
	}
	return Type{}, fmt.Errorf("unknown subagent_type %q; known types: %s", name, strings.Join(r.Names(), ", "))
}

// Names lists the known type names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.types))
	for _, t := range r.types {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	return names
}

// All lists the types sorted by name.
func (r *Registry) All() []Type {
	out := make([]Type, 0, len(r.types))
	for _, n := range r.Names() {
		out = append(out, r.types[strings.ToLower(n)])
	}
	return out
}
