// Package spawn answers one question: given an agent type, what session
// runs it? It holds the agent types (the built-ins and those of agent
// files, LoadTypes); an Opener resolves a type to its tools, model and backend
// (Resolve) and opens the session on that backend (Open): Atomic's own
// loop (backend/native), an external CLI (claude-code, codex, …) or the
// NATS workers. The lead, sub-agents, teammates and a worker's tasks are
// all opened here; the sub-agent and team managers only schedule.
package spawn

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Remote is the backend of an agent sent to the NATS workers.
const Remote = "remote"

// Config is what every session an Opener opens inherits from the run.
type Config struct {
	// Provider and Model are the lead's: a native agent calls the same
	// provider, on the model its type names or else the lead's.
	Provider provider.Provider
	Model    string
	Types    *Registry
	// Tools is every tool an agent may get (no orchestration tools): a
	// type naming none gets all of it, other types a subset by name.
	Tools *tools.Set
	Gate  *permission.Gate
	// MaxTurns bounds each native agent's model requests per turn (0: the
	// loop's default).
	MaxTurns int
	// Context sizes each native agent's window and when it compacts.
	Context backend.ContextPolicy
	// Effort is the lead's thinking level, which every agent inherits
	// unless its type's file says effort:.
	Effort provider.Effort
	// Workspace is a CLI's working directory unless its Spec names one.
	Workspace string
	Now       func() time.Time
	// CLIs opens a session of an external CLI, handing it the endpoint,
	// key and (when cfg.Model is empty) model it inherits from the lead;
	// nil: types naming a CLI fail to open, saying so.
	CLIs backend.Factory
	// NameAgent names the sub-agents a CLI starts (<type>-<n>), so that
	// ids stay unique in the whole tree; nil: each CLI counts on its own.
	NameAgent func(agentType string) string
	// Remote, when set, takes the types it runs to the NATS workers.
	Remote *remote.Dispatcher
	// History is given each native agent's whole history after each
	// change (the session store); it must only queue.
	History func(agentID string, msgs []provider.Message)
	// Warn is told (once each) what an agent starts without: MCP tools of
	// a server not up. It must not block.
	Warn func(string)
	// Hooks are the user's hooks every native agent runs (nil: none).
	Hooks *hooks.Runner
}

// Opener opens sessions. Safe for concurrent use.
type Opener struct {
	cfg Config

	mu     sync.Mutex
	model  string
	warned map[string]bool
}

// New returns an Opener.
func New(cfg Config) *Opener {
	if cfg.Types == nil {
		cfg.Types = NewRegistry()
	}
	if cfg.Tools == nil {
		cfg.Tools = tools.NewSet()
	}
	if cfg.Model == "" && cfg.Provider != nil {
		cfg.Model = cfg.Provider.Model()
	}
	return &Opener{cfg: cfg, model: cfg.Model, warned: map[string]bool{}}
}

// SetModel changes the lead's model that agents opened from now on
// inherit.
func (o *Opener) SetModel(model string) {
	o.mu.Lock()
	o.model = model
	o.mu.Unlock()
}

// Model is the lead's model as agents inherit it.
func (o *Opener) Model() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.model
}

// Types is the agent type registry.
func (o *Opener) Types() *Registry { return o.cfg.Types }

// Tools is every tool an agent may get.
func (o *Opener) Tools() *tools.Set { return o.cfg.Tools }

// Plan is what an agent type resolves to.
type Plan struct {
	Type Type
	// Backend is backend.Native, a CLI's backend name, or Remote.
	Backend string
	// Tools are a native or remote agent's tools (a remote one's by name:
	// the worker builds them); nil for a CLI, which has its own.
	Tools *tools.Set
	// Model is the model the agent runs: its type's, else for a native or
	// remote agent the lead's; a CLI given none inherits the model of its
	// own API's settings (Config.CLIs).
	Model string
	// Effort is the agent's thinking level: its type's, else the lead's.
	Effort provider.Effort
}

// External reports whether p runs on an external CLI.
func (p Plan) External() bool { return p.Backend != backend.Native && p.Backend != Remote }

// Lookup resolves the agent type called name (empty: general-purpose).
func (o *Opener) Lookup(name string) (Plan, error) {
	typ, err := o.cfg.Types.Lookup(name)
	if err != nil {
		return Plan{}, err
	}
	return o.Resolve(typ)
}

// Resolve turns typ into a Plan: type → tools → model → backend.
func (o *Opener) Resolve(typ Type) (Plan, error) {
	p := Plan{Type: typ, Backend: cmp.Or(typ.Backend, backend.Native), Model: typ.Model, Effort: cmp.Or(typ.Effort, o.cfg.Effort)}
	if o.cfg.Remote != nil && !typ.External() && o.cfg.Remote.Takes(typ.RunsOn == Workers) {
		p.Backend = Remote
	}
	if p.External() {
		return p, nil
	}
	if p.Model == "" || p.Model == "inherit" || isClaudeAlias(p.Model) {
		p.Model = o.Model()
	}
	p.Tools = o.cfg.Tools
	if typ.Tools != nil {
		// task and its companions are the sub-agent manager's to add,
		// bounded by the depth limit (Nests).
		own := slices.DeleteFunc(slices.Clone(typ.Tools), Orchestration)
		names, missing := resolveMCP(o.cfg.Tools, own)
		set, err := o.cfg.Tools.Only(names...)
		if err != nil {
			return Plan{}, fmt.Errorf("agent type %s (%s): %w", typ.Name, typ.Source, err)
		}
		if typ.ReadOnlyMCP {
			readOnlyMCP(o.cfg.Tools, set)
		}
		p.Tools = set
		if len(missing) > 0 {
			o.warnOnce(fmt.Sprintf("agent type %s: MCP tools %s are not available (server not up or failed); the agent starts without them",
				typ.Name, strings.Join(missing, ", ")))
		}
	}
	return p, nil
}

// Orchestration reports whether tool name is task or one of its
// companions: not in Config.Tools, added per agent by whoever starts it.
func Orchestration(name string) bool {
	switch name {
	case "task", "check_task", "wait_for_task", "list_background_tasks", "cancel_task":
		return true
	}
	return false
}

// Nests reports whether agents of typ may start sub-agents (within the
// depth limit): a native type that keeps every tool, or lists task.
func Nests(typ Type) bool {
	return (typ.Backend == "" || typ.Backend == backend.Native) && (typ.Tools == nil || slices.Contains(typ.Tools, "task"))
}

// isClaudeAlias reports Claude Code's model aliases, which agent files
// written for Claude Code use; a native agent inherits the lead's model
// instead.
func isClaudeAlias(m string) bool {
	switch m {
	case "sonnet", "opus", "haiku":
		return true
	}
	return false
}

// warnOnce gives w to Config.Warn the first time only: every open of a
// type would otherwise repeat it.
func (o *Opener) warnOnce(w string) {
	if o.cfg.Warn == nil {
		return
	}
	o.mu.Lock()
	seen := o.warned[w]
	o.warned[w] = true
	o.mu.Unlock()
	if !seen {
		o.cfg.Warn(w)
	}
}
