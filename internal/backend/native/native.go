// Package native is Atomic's own agent loop (internal/agent) behind the
// session seam: New opens it from the same backend.Config the CLI adapters
// (claudecode, codex, opencode, copilot) are opened from, so whoever opens
// a session names a backend and a Config and never the loop itself.
package native

import (
	"github.com/atomic-agent/atomic/internal/agent"
	"github.com/atomic-agent/atomic/internal/backend"
)

// Compile-time check: the native loop is a backend session that takes
// images.
var (
	_ backend.Session     = (*agent.Session)(nil)
	_ backend.ImageRunner = (*agent.Session)(nil)
)

// New opens a native session: the loop over cfg.Provider with cfg's
// system prompt and tools, emitting to cfg.Sink. Nothing runs until Run
// (whose first call emits session.start).
func New(cfg backend.Config) *agent.Session {
	return agent.New(agent.Config{
		SessionID: cfg.SessionID, ID: cfg.AgentID, ParentID: cfg.ParentID, Name: cfg.AgentName,
		Provider: cfg.Provider, Model: cfg.Model, System: cfg.System, Tools: cfg.Tools,
		Gate: cfg.Gate, Sink: cfg.Sink, MaxTurns: cfg.MaxTurns, Now: cfg.Now,
		History: cfg.History, OnHistory: cfg.OnHistory,
	})
}
