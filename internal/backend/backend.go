// Package backend is the session seam: a Session is one context window run
// by something, Atomic's own agent loop over a provider (native) or an
// external agent CLI (claudecode, codex, …). The runtime drives every lead
// through this one interface, and everything a session does, its own
// sub-agents included, reaches the bus as SPEC §1 events: the lifecycle
// reducer, the TUI and the headless output never know which backend ran.
package backend

import (
	"context"
	"strconv"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Names of the backends (the --backend flag, subagent.start's backend).
const (
	Native     = "native"
	ClaudeCode = "claude-code"
	Codex      = "codex"
	OpenCode   = "opencode"
	Copilot    = "copilot"
)

// Result is what a turn produced.
type Result struct {
	// Text is the model's final answer (its last message's text).
	Text       string
	StopReason provider.StopReason
	// Turns counts model requests made by this Run.
	Turns int
	// Usage is the Run's token usage.
	Usage event.Usage
}

// Session is one agent session. Run may not be called concurrently with
// itself; the other methods are safe from any goroutine.
type Session interface {
	// Run sends prompt (when not empty) together with whatever was
	// delivered, and blocks until the turn ends: the model stopped, or the
	// CLI reported the turn's result. Its events stream to the session's
	// sink meanwhile. Cancelling ctx interrupts the turn (an external CLI is
	// sent its own interrupt); Run then returns an error wrapping ctx's.
	// Run with an empty prompt and nothing delivered, on a session that is
	// not Pending, returns at once without a turn.
	Run(ctx context.Context, prompt string) (*Result, error)
	// Deliver queues a message for the next turn (a teammate's message, a
	// notice).
	Deliver(text string)
	// DeliverLazy queues a message decided when the next turn is built
	// (see native.Session.DeliverLazy).
	DeliverLazy(take func() (string, bool), live func() bool)
	// Pending reports whether the session has something to do without a
	// new prompt: delivered messages, or (an external CLI) a turn the CLI
	// began by itself, such as on a background sub-agent's completion. The
	// runtime then calls Run(ctx, "") to carry it (or wait for it) to its
	// end. A session that becomes pending emits an event (subagent.complete
	// or a message) so the runtime looks.
	Pending() bool
	// Reset clears the conversation (/clear); no Run is in progress.
	Reset()
	// SetModel switches the model for the following turns.
	SetModel(model string)
	// Model is the model the session uses ("" when the CLI chooses).
	Model() string
	// Close ends the session and everything it started (an external CLI's
	// process included) and waits for it.
	Close() error
}

// ImageRunner is implemented by sessions that take images in a prompt
// (the native loop); an external CLI's session takes text only.
type ImageRunner interface {
	// RunImages is Run with images following the prompt's text in the
	// same user message.
	RunImages(ctx context.Context, prompt string, images []provider.Image) (*Result, error)
}

// AgentCanceller is implemented by sessions whose own sub-agents can be
// stopped one by one: /tasks, cancel, and an interrupt of the background
// work a CLI lead started.
type AgentCanceller interface {
	CancelAgent(id string) error
}

// AgentsInterrupter is implemented by sessions whose own sub-agents must be
// stopped together with an interrupt of the lead, its turn running or
// not: a CLI told to stop a background sub-agent alone wakes its idle lead
// with the sub-agent's end, a model request after the interrupt (Claude
// Code does). InterruptAgents interrupts the lead, stops ids and returns
// once the CLI took the interrupt (bounded).
type AgentsInterrupter interface {
	InterruptAgents(ids []string)
}

// Factory builds a session on the named backend (a mixed tree's sub-agents
// and teammates run on the backend their agent type names).
type Factory func(name string, cfg Config) (Session, error)

// Name gives the id a CLI's sub-agent of agentType gets: cfg.NameAgent
// when set, else the next of counts (<type>-<n>, as the native manager
// names them).
func (cfg Config) Name(agentType string, counts map[string]int) string {
	if cfg.NameAgent != nil {
		return cfg.NameAgent(agentType)
	}
	counts[agentType]++
	return agentType + "-" + strconv.Itoa(counts[agentType])
}

// Config is what every backend's session is built from.
type Config struct {
	// SessionID is the session's id in events; AgentID its agent id
	// ("lead"). Sub-agents an external CLI runs get ids of their own
	// (explore-1) and sessions SessionID+"/"+id.
	SessionID string
	AgentID   string
	// ParentID is the agent that started this session when it is itself a
	// sub-agent or teammate of another agent (a mixed tree); empty for the
	// lead. Its own events carry it as parent_agent_id.
	ParentID string
	// TaskCallID is the task call that started this session when it is a
	// sub-agent (empty for the lead and teammates): its progress events
	// (subagent.update) name it, as the manager's do.
	TaskCallID string
	// NameAgent names the sub-agents the session's CLI starts (<type>-<n>).
	// A session inside a larger tree is given the tree's namer, so that its
	// sub-agents' ids never collide with their cousins'; nil: the session
	// counts on its own.
	NameAgent func(agentType string) string
	// Workspace is the working directory.
	Workspace string
	// Bin is the CLI binary; empty: looked up on PATH.
	Bin string
	// Model, BaseURL and APIKey pass Atomic's provider settings through in
	// the CLI's own terms; all empty: the CLI's own login and config are
	// used untouched.
	Model, BaseURL, APIKey string
	// Gate decides approvals: Check, then Ask (the TUI's prompt queue or
	// the headless policy, which denies naming the flag that would allow).
	Gate *permission.Gate
	// Sink receives every event.
	Sink event.Sink
	// Now is the clock for event times (nil: time.Now).
	Now func() time.Time
	// ResumeCLI is the CLI's own id of an earlier conversation to continue
	// (Claude Code's session id), so that a resumed Atomic session's lead
	// has its history; empty: a new conversation.
	ResumeCLI string
	// OnCLISession is told the CLI's own id of the conversation whenever
	// the CLI names a new one, for the store to keep for a later resume;
	// nil: nobody keeps it.
	OnCLISession func(id string)
	// CLIHome is where a CLI whose home Atomic makes (Codex given a base
	// URL or key) keeps its files, conversations included: it is kept, so
	// that a resumed session's conversation is found there; empty: a
	// throwaway home, removed on Close.
	CLIHome string
	// Effort is how hard the agent's model is asked to think (--effort,
	// or its agent file's effort:); empty: no thinking asked for. A CLI
	// is given it where it takes a level.
	Effort provider.Effort
	// FallbackModel is the model a CLI that has one (Claude Code's
	// --fallback-model) falls back to when the model is overloaded.
	FallbackModel string

	// What only the native loop reads (backend/native); a CLI brings its
	// own: the provider it calls, the name its approval prompts and
	// session.start give it (AgentName), its system prompt and tools, its
	// bound on model requests per turn (0: the loop's default), the
	// conversation it continues (a resumed agent's) and who keeps each
	// change of it (the session store; it must only queue).
	Provider  provider.Provider
	AgentName string
	System    string
	Tools     *tools.Set
	MaxTurns  int
	History   []provider.Message
	OnHistory func([]provider.Message)
	// Context sizes the native agent's window and when it compacts.
	Context ContextPolicy
	// Hooks are the user's Claude Code hooks the native agent runs (nil:
	// none); a CLI runs its own from its own settings.
	Hooks *hooks.Runner
}

// Decide passes req through the gate the way the native loop does:
// Check decides what needs no human; otherwise the request is reported as
// permission.requested (from base's agent, session and tool call), put to
// the human (or the headless policy) and reported as permission.resolved.
// Nothing waits on a prompt nobody sees: a headless gate denies at once.
func Decide(ctx context.Context, gate *permission.Gate, sink event.Sink, base event.Event, req permission.Request) permission.Decision {
	if gate == nil {
		return permission.Decision{Allow: true}
	}
	if d, decided := gate.Check(req); decided {
		return d
	}
	now := time.Now
	e := base
	e.Type, e.Time = event.PermissionRequested, now()
	req.Path = gate.Path(req.AgentID)
	e.Data = event.PermissionRequestedData{RequestID: req.ID, AgentName: req.AgentName, Path: req.Path, Tool: req.Tool,
		Subject: req.Subject, Input: req.Input, SessionRules: gate.SessionRules(req)}
	sink.Emit(e)
	d := gate.Ask(ctx, req)
	e.Type, e.Time = event.PermissionResolved, now()
	e.Data = event.PermissionResolvedData{RequestID: req.ID, Allowed: d.Allow, Reason: d.Reason}
	sink.Emit(e)
	return d
}

// SessionStart is the session.start of the session c describes, run by
// provider (the backend's name) on model.
func (c Config) SessionStart(provider, model string) event.Event {
	return event.Event{Type: event.SessionStart, Time: c.Now(), SessionID: c.SessionID, AgentID: c.AgentID, ParentAgentID: c.ParentID,
		Data: event.SessionStartData{Model: model, Provider: provider, Name: c.AgentID}}
}

// WithDefaults fills what a backend needs and the caller left out: events
// discarded, the wall clock, the agent id "lead".
func (c Config) WithDefaults() Config {
	if c.Sink == nil {
		c.Sink = event.Discard
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.AgentID == "" {
		c.AgentID = event.LeadID
	}
	return c
}
