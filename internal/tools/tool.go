// Package tools holds the tools agents call, and what a tool is for the agent
// loop: a name, a description and input schema for the model, a permission
// class, and Run. Each tool is one file with its description beside it.
package tools

import (
	"context"
	"encoding/json"

	"github.com/atomic-agent/atomic/internal/event"
)

// Kind classifies a tool for the permission gate and for concurrency.
type Kind int

// Kinds.
const (
	// ReadOnly tools never change anything; they always run concurrently
	// and are allowed in every permission mode.
	ReadOnly Kind = iota
	// Edit tools change files (write, edit).
	Edit
	// Exec tools run commands (bash).
	Exec
	// Orchestrate tools drive other agents (task, messaging); they are not
	// gated like edits, the agents they start are gated themselves.
	Orchestrate
)

// Tool is one capability offered to the model.
type Tool interface {
	Name() string
	// Description is what the model reads to decide when to use the tool.
	Description() string
	// Schema is the JSON Schema of the input object.
	Schema() json.RawMessage
	Kind() Kind
	// Run executes a call whose input already passed Schema validation.
	// A returned error becomes a tool error the model can read.
	Run(ctx context.Context, call Call) (Result, error)
}

// Call is one invocation.
type Call struct {
	ID    string
	Input json.RawMessage
	// AgentID is the agent making the call.
	AgentID string
	// Progress, when set, is told how far a long call is (an MCP server's
	// progress notifications); it may be called from any goroutine while
	// Run runs.
	Progress func(event.ToolProgressData)
}

// Result is what the model gets back.
type Result struct {
	Content string
	IsError bool
	// Images go back to the model beside Content (an MCP tool's
	// screenshot, a fetched image), so they are not flattened away.
	Images []Image
	// Announce, when set, is emitted by the agent loop as an event from
	// the calling agent just before the call's tool.complete: a tool whose
	// effect views follow (todo_write's plan) tells them so directly,
	// instead of every view parsing tool inputs.
	Announce *Announcement
}

// Announcement is an event a tool call reports through its agent, which
// adds the session, agent and tool call ids.
type Announcement struct {
	Type event.Type
	Data any
}

// Image is a picture in a tool result.
type Image struct {
	MediaType string // e.g. image/png
	Data      []byte // raw bytes, not base64
}

// Subjecter is implemented by tools whose calls have one argument that
// matters (a command, a path): it labels approval prompts and is what
// permission patterns like bash(go test:*) match against.
type Subjecter interface {
	Subject(input json.RawMessage) string
}

// Locker is implemented by tools whose calls must not overlap when they touch
// the same resource: calls sharing a key run one at a time, others run
// concurrently. Edit tools return the absolute path they write.
type Locker interface {
	LockKeys(input json.RawMessage) []string
}

// Starter is implemented by tools whose calls begin with a quick step that
// must happen in the model's order, followed by a wait that runs
// concurrently with the other calls of the message. The task tool spawns
// sub-agents this way, so ids and queue order follow the calls. The agent
// loop calls Start for such calls one by one, in order, then the waits
// concurrently; Run must behave as Start followed by wait.
type Starter interface {
	Start(ctx context.Context, call Call) (wait func() (Result, error), err error)
}

// Notifier is implemented by Starter tools that can say when a started
// call's wait will no longer block: StartNotify is Start, and ready is
// called once then (from any goroutine; it must not block). The agent loop
// then waits for all such calls of a message on its own goroutine, not on
// a goroutine per call (a thousand sub-agents' waits).
type Notifier interface {
	StartNotify(ctx context.Context, call Call, ready func()) (wait func() (Result, error), err error)
}

// Reserver is implemented by Starter tools whose calls start an agent (the
// task tool). The agent loop calls Reserve just before it announces such a
// call: Reserve names the agent and takes its place in the queue, so the
// call's tool.start carries the agent's id and session (the agent has one
// id from its first event to its last) and says whether it waits for a
// concurrency slot. A reservation the loop does not Start (the call was
// denied or cancelled) is given back with Release. An error reserves
// nothing; Start then reports it.
type Reserver interface {
	Reserve(call Call) (Reservation, error)
	Release(callID string)
}

// Reservation names the agent a call will start.
type Reservation struct {
	AgentID   string
	SessionID string
	// Queued: the agent waits for a concurrency slot.
	Queued bool
	// Subject is the call's subject (tools.Subjecter), read from the input
	// the reservation parsed: the loop needs no second parse.
	Subject string
}
