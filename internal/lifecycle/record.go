package lifecycle

import (
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Record is everything known about one sub-agent. It is a plain value: the
// reducer returns new Records and never shares mutable state with callers.
// It is also the data.agent member of agent.status events.
type Record struct {
	// ID is the sub-agent id (e.g. "explore-1"); until subagent.start
	// arrives it is the id of the task tool call that spawned the agent.
	ID string `json:"id"`
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

	Status    Status    `json:"status"`
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
}

// WaitingSlot is the Waiting value of an agent queued for a concurrency slot
// (subagent.update with this Waiting makes a sync agent pending).
const WaitingSlot = "slot"

// StatusData is the payload of an agent.status event: one agent's status and
// its whole record.
type StatusData struct {
	Status Status `json:"status"`
	Agent  Record `json:"agent"`
}

// StatusEvent builds the agent.status event reporting r, changed by cause:
// it carries cause's time and session, and r's ids.
func StatusEvent(cause event.Event, r Record) event.Event {
	return event.Event{
		Type:          event.AgentStatus,
		Time:          cause.Time,
		SessionID:     cause.SessionID,
		AgentID:       r.ID,
		ParentAgentID: r.ParentID,
		ToolCallID:    r.ToolCallID,
		Data:          StatusData{Status: r.Status, Agent: r},
	}
}
