package spawn

import (
	"cmp"
	"fmt"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/backend/native"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Spec is who an opened agent is and what it is given besides its Plan.
type Spec struct {
	// SessionID and AgentID name the agent in events; ParentID is the
	// agent that started it (empty for the lead).
	SessionID, AgentID, ParentID string
	// ToolCallID is the task call that started the agent (empty for the
	// lead and teammates).
	ToolCallID string
	// Name labels a native agent in approval prompts and its
	// session.start (its type's name, a teammate's name).
	Name string
	// Sink receives every event of the session.
	Sink event.Sink
	// System is a native agent's whole system prompt (a CLI's
	// instructions go in its prompt).
	System string
	// Workspace is a CLI's working directory (empty: Config.Workspace).
	Workspace string
	// History is a saved conversation a native agent continues.
	History []provider.Message
	// Remote is what a task sent to the workers carries besides its
	// prompt and type, and the hooks its progress reaches the lead by
	// (Hooks.Sink is Sink).
	Remote RemoteSpec
}

// RemoteSpec is the part of a Spec only a task on the workers reads.
type RemoteSpec struct {
	Description string
	Hooks       remote.Hooks
}

// Open opens p's session for s on p's backend. Nothing runs until the
// session's Run.
func (o *Opener) Open(p Plan, s Spec) (backend.Session, error) {
	cfg := o.config(p, s)
	switch p.Backend {
	case backend.Native:
		return native.Open(cfg), nil
	case Remote:
		if o.cfg.Remote == nil {
			return nil, fmt.Errorf("agent type %s (%s) runs on the workers, and this run has no NATS server", p.Type.Name, p.Type.Source)
		}
		return &RemoteSession{d: o.cfg.Remote, plan: p, spec: s}, nil
	}
	if o.cfg.CLIs == nil {
		return nil, fmt.Errorf("agent type %s (%s) runs on the %s backend, which this run cannot start", p.Type.Name, p.Type.Source, p.Backend)
	}
	sess, err := o.cfg.CLIs(p.Backend, cfg)
	if err != nil {
		return nil, fmt.Errorf("agent type %s (%s): %w", p.Type.Name, p.Type.Source, err)
	}
	return sess, nil
}

// OpenLead opens the lead: with open when the run's lead is on another
// backend (an external CLI's opener built from --backend), else the
// native loop with the lead's tools. Its Config is filled as every other
// agent's is.
func (o *Opener) OpenLead(open func(backend.Config) (backend.Session, error), leadTools *tools.Set, s Spec) (backend.Session, error) {
	if open == nil {
		return o.Open(Plan{Backend: backend.Native, Tools: leadTools, Model: o.Model()}, s)
	}
	// The lead's CLI takes nothing of a plan: --backend's opener gives it
	// its binary, model and endpoint.
	return open(o.config(Plan{}, s))
}

// config is the backend.Config of p's session for s.
func (o *Opener) config(p Plan, s Spec) backend.Config {
	cfg := backend.Config{SessionID: s.SessionID, AgentID: s.AgentID, ParentID: s.ParentID, TaskCallID: s.ToolCallID,
		Workspace: s.Workspace, Model: p.Model, Gate: o.cfg.Gate, Sink: s.Sink, Now: o.cfg.Now, Effort: cmp.Or(p.Effort, o.cfg.Effort)}
	if cfg.Workspace == "" {
		cfg.Workspace = o.cfg.Workspace
	}
	if p.Backend != backend.Native {
		cfg.NameAgent = o.cfg.NameAgent
		return cfg
	}
	cfg.Provider, cfg.AgentName, cfg.System, cfg.Tools = o.cfg.Provider, s.Name, s.System, p.Tools
	cfg.MaxTurns, cfg.History, cfg.Context = o.cfg.MaxTurns, s.History, o.cfg.Context
	cfg.Hooks = o.cfg.Hooks.With(p.Type.Hooks, hooks.Options{Dir: cfg.Workspace})
	if save := o.cfg.History; save != nil {
		id := s.AgentID
		cfg.OnHistory = func(msgs []provider.Message) { save(id, msgs) }
	}
	return cfg
}
