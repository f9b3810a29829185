package lifecycle

import (
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Record is everything known about one sub-agent. It is a plain value: the
// reducer returns new Records and never shares mutable state with callers.
// It is also the data.agent member of agent.status events.
type Record struct {
	// Kind is KindShell for a background shell (bash run_in_background);
	// empty for an agent.
	Kind string `json:"kind,omitempty"`
	// ID is the sub-agent id (e.g. "explore-1"), the same in every event
	// from the task call's tool.start on. Only a task call that never named
	// its agent (a spawn that failed before it had one) falls back to the
	// task tool call id.
	ID string `json:"id"`
	// SessionID is the sub-agent's own session.
	SessionID string `json:"session_id,omitempty"`
	// ToolCallID is the task tool call that spawned the agent.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// ParentID is the agent id of the caller of the task tool.
	ParentID string `json:"parent_id,omitempty"`
	// Name is the agent type as displayed (see DisplayName).
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Prompt      string `json:"prompt,omitempty"`
	// Background is set for mode background (or its alias async).
	Background bool   `json:"background,omitempty"`
	Model      string `json:"model,omitempty"`
	// Backend is where the agent runs: native or an external CLI.
	Backend string `json:"backend,omitempty"`
	// Worktree is the git worktree an isolated agent works in.
	Worktree string `json:"worktree,omitempty"`
	// Sandbox confines the agent's commands (subagent.start's sandbox).
	Sandbox string `json:"sandbox,omitempty"`
	// Worker is the remote worker running the agent (NATS); Note what
	// happened to it there ("restarted on worker-b").
	Worker string `json:"worker,omitempty"`
	Note   string `json:"note,omitempty"`

	Status Status `json:"status"`
	// Session is SessionOpen from the agent's subagent.start to its
	// subagent.complete, then SessionClosed: an interrupted agent is
	// terminal at once, but its session is still closing until it reports
	// its end.
	Session   string    `json:"session,omitempty"`
	StartedAt time.Time `json:"started_at,omitzero"`
	// Duration is set exactly once, when the record reaches a terminal
	// status: the terminating event's time minus StartedAt.
	Duration time.Duration `json:"duration_ns,omitempty"`

	ToolUses    int    `json:"tool_uses"`
	CurrentTool string `json:"current_tool,omitempty"`
	// Waiting names what the agent waits for: WaitingSlot for a
	// concurrency slot, otherwise the approval it asked for.
	Waiting string      `json:"waiting,omitempty"`
	Usage   event.Usage `json:"usage"`

	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
	// Ack is the spawn acknowledgement of a background task (the result of
	// its tool.complete), which is not the end of the work.
	Ack string `json:"ack,omitempty"`

	// TurnEnded is set while the agent's last turn has ended and it has
	// not been woken (subagent.update idle): with work of its own still
	// running it is Waiting (nest.go).
	TurnEnded bool `json:"turn_ended,omitempty"`
	// Held is the end (completed) an agent reported while its descendants
	// still ran: it stays Waiting and takes Held when the last one ends.
	Held Status `json:"held,omitempty"`
	// A shell's command, the last line it wrote, and its exit status once
	// it exited (a shell that exited non-zero is error).
	Command  string `json:"command,omitempty"`
	LastLine string `json:"last_line,omitempty"`
	ExitCode int    `json:"exit_code,omitempty"`
}

// KindShell is the Kind of a background shell's record.
const KindShell = "shell"

// IsShell reports whether r is a background shell's record.
func (r Record) IsShell() bool { return r.Kind == KindShell }

// WaitingSlot is the Waiting value of an agent queued for a concurrency slot
// (subagent.update with this Waiting makes a sync agent pending).
const WaitingSlot = "slot"

// Session values of a Record.
const (
	SessionOpen   = "open"
	SessionClosed = "closed"
)

// StatusData is the payload of an agent.status event: one agent's status and
// its whole record.
type StatusData struct {
	Status Status `json:"status"`
	Agent  Record `json:"agent"`
}

// StatusEvent builds the agent.status event reporting r, changed by cause:
// it carries cause's time and r's ids and session (cause's session when r
// has none of its own).
func StatusEvent(cause event.Event, r Record) event.Event {
	sid := r.SessionID
	if sid == "" {
		sid = cause.SessionID
	}
	return event.Event{
		Type:          event.AgentStatus,
		Time:          cause.Time,
		SessionID:     sid,
		AgentID:       r.ID,
		ParentAgentID: r.ParentID,
		ToolCallID:    r.ToolCallID,
		Data:          StatusData{Status: r.Status, Agent: r},
	}
}
