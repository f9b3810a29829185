package native

import "github.com/atomic-agent/atomic/internal/backend"

// Compile-time check: the native loop is a backend session that takes
// images.
var (
	_ backend.Session     = (*Session)(nil)
	_ backend.ImageRunner = (*Session)(nil)
)

// Open opens a native session from the seam's Config: the loop over
// cfg.Provider with cfg's system prompt and tools, emitting to cfg.Sink.
// Nothing runs until Run (whose first call emits session.start).
func Open(cfg backend.Config) *Session {
	return New(Config{
		SessionID: cfg.SessionID, ID: cfg.AgentID, ParentID: cfg.ParentID, TaskCallID: cfg.TaskCallID, Name: cfg.AgentName,
		Provider: cfg.Provider, Model: cfg.Model, System: cfg.System, Tools: cfg.Tools,
		Gate: cfg.Gate, Sink: cfg.Sink, MaxTurns: cfg.MaxTurns, Now: cfg.Now,
		History: cfg.History, OnHistory: cfg.OnHistory, Context: cfg.Context, Effort: cfg.Effort, Hooks: cfg.Hooks,
	})
}
