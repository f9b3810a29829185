// Package remote runs sub-agents on other machines through NATS JetStream.
// A lead (Dispatcher) puts each task on a work-queue stream; workers
// (Worker) pull them, run them in a worktree of their own clone at the
// lead's commit with the lead's uncommitted changes applied, and send the
// sub-agent's events and its result back to the lead.
//
// The wire, all under one lead's subject prefix atomic.lead.<lead-id>:
//
//	atomic.tasks                 (stream ATOMIC_TASKS, work queue) a Task
//	atomic.lead.<id>.hb          the lead's heartbeat (core): workers cancel
//	                             its tasks when it stops
//	atomic.lead.<id>.claim       (request) a worker takes a task: the lead
//	                             answers go or stop (cancelled, done, unknown)
//	atomic.lead.<id>.ev          an Envelope with one §1 event of a task
//	atomic.lead.<id>.beat        a worker's heartbeat for one task attempt
//	atomic.lead.<id>.result      (request) a task's Result; the lead keeps
//	                             only the first of the attempt it follows
//	atomic.cancel.<lead>.<task>  the lead cancels a task
//	object store atomic-patches  the lead's uncommitted changes (by hash)
//	                             and each result's patch
//
// A worker that dies stops its in-progress acks; JetStream redelivers the
// task after the ack wait to another worker, whose claim the lead takes
// as the attempt it now follows: events and results of older attempts
// are dropped, so the lead never gets two results for one task.
package remote

import (
	"encoding/json"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Names of the stream, its consumer and the object store.
const (
	Stream      = "ATOMIC_TASKS"
	TaskSubject = "atomic.tasks"
	Consumer    = "workers"
	PatchBucket = "atomic-patches"
)

// DefaultHeartbeat is how often leads and workers say they are alive; a
// side silent for three of them is taken for gone.
const DefaultHeartbeat = 2 * time.Second

// DefaultMaxAttempts is how many workers a task is given before it ends
// in an error.
const DefaultMaxAttempts = 3

func leadSubject(lead, what string) string { return "atomic.lead." + lead + "." + what }

func cancelSubject(lead, task string) string { return "atomic.cancel." + lead + "." + task }

// Task is one sub-agent the lead sends to the workers.
type Task struct {
	Lead string `json:"lead"`
	// ID is the agent id (explore-1); with Lead it names the task.
	ID          string `json:"id"`
	SessionID   string `json:"session_id"`
	ParentID    string `json:"parent_id,omitempty"`
	ToolCallID  string `json:"tool_call_id,omitempty"`
	AgentType   string `json:"agent_type"`
	Description string `json:"description,omitempty"`
	Prompt      string `json:"prompt"`
	// System is the type's own prompt, added to the worker's system
	// prompt; Tools the type's tool names (nil: all).
	System string   `json:"system,omitempty"`
	Tools  []string `json:"tools,omitempty"`
	// Effort is the agent's thinking level, as the lead resolved it
	// (empty: the worker's own --effort).
	Effort string `json:"effort,omitempty"`
	// Commit is the lead's HEAD; Patch names the object holding the
	// lead's uncommitted changes on top of it (empty: none).
	Commit string `json:"commit,omitempty"`
	Patch  string `json:"patch,omitempty"`
	// HeartbeatMS is the lead's heartbeat interval; MaxAttempts how many
	// deliveries the task gets.
	HeartbeatMS int `json:"heartbeat_ms"`
	MaxAttempts int `json:"max_attempts"`
}

// Key names the task across leads.
func (t Task) Key() string { return t.Lead + "." + t.ID }

// Claim is a worker's request to run one attempt of a task.
type Claim struct {
	Task    string `json:"task"`
	Attempt int    `json:"attempt"`
	Worker  string `json:"worker"`
}

// ClaimReply answers a Claim: Go, or why not.
type ClaimReply struct {
	Go     bool   `json:"go"`
	Reason string `json:"reason,omitempty"`
}

// Envelope carries one event of a task attempt.
type Envelope struct {
	Task    string          `json:"task"`
	Attempt int             `json:"attempt"`
	Event   json.RawMessage `json:"event"`
}

// Beat is a worker's heartbeat for one attempt.
type Beat struct {
	Task    string `json:"task"`
	Attempt int    `json:"attempt"`
	Worker  string `json:"worker"`
}

// Result is how an attempt ended.
type Result struct {
	Task    string `json:"task"`
	Attempt int    `json:"attempt"`
	Worker  string `json:"worker"`
	Success bool   `json:"success"`
	Text    string `json:"text,omitempty"`
	Error   string `json:"error,omitempty"`
	// GaveUp is set when the task ran out of attempts (Error says so).
	GaveUp bool `json:"gave_up,omitempty"`
	// Stopped is the word of a worker that stops before the attempt's end:
	// it gave the task back to the queue, for another worker. It ends the
	// attempt, not the task.
	Stopped bool `json:"stopped,omitempty"`
	// Patch names the object with the agent's changes (git diff --binary
	// against the tree it was given); empty: no file changed.
	Patch string      `json:"patch,omitempty"`
	Usage event.Usage `json:"usage"`
	Turns int         `json:"turns,omitempty"`
}

// decodeEvent turns a published event back into an Event whose payload is
// typed for the kinds the lead's progress tally reads, raw otherwise
// (event.Payload reads both).
func decodeEvent(b []byte) (event.Event, error) {
	var r event.Raw
	if err := json.Unmarshal(b, &r); err != nil {
		return event.Event{}, err
	}
	e := r.Event()
	switch e.Type {
	case event.ToolStart:
		if d, ok := event.Payload[event.ToolStartData](r.Data); ok {
			e.Data = d
		}
	case event.UsageUpdate:
		if d, ok := event.Payload[event.UsageUpdateData](r.Data); ok {
			e.Data = d
		}
	}
	return e, nil
}
