// Package event defines Atomic's unified event model (SPEC §1): every backend,
// the native agent loop and the sub-agent runtime alike, reports what happens as
// a stream of these events, and every view (TUI, headless output, tests) is
// computed from that stream.
package event

import (
	"encoding/json"
	"strconv"
	"time"
)

// Type names an event kind; the string is its wire name.
type Type string

// The event kinds of SPEC §1.
const (
	SessionStart        Type = "session.start"
	MessageDelta        Type = "message.delta"
	MessageComplete     Type = "message.complete"
	ToolStart           Type = "tool.start"
	ToolComplete        Type = "tool.complete"
	SubagentStart       Type = "subagent.start"
	SubagentUpdate      Type = "subagent.update"
	SubagentComplete    Type = "subagent.complete"
	AgentStatus         Type = "agent.status"
	PermissionRequested Type = "permission.requested"
	PermissionResolved  Type = "permission.resolved"
	UsageUpdate         Type = "usage.update"
	TurnEnd             Type = "turn.end"
	Complete            Type = "complete"
	TeamMessage         Type = "team.message"
	TeammateStatus      Type = "teammate.status"
	Interrupt           Type = "interrupt"
	Retry               Type = "retry"
	// PlanUpdate: an agent's plan (todo_write, a CLI's TodoWrite or plan
	// update) changed; data is the whole new list, which replaces that
	// agent's previous one. Each agent (lead, sub-agent, teammate) has its
	// own plan, named by the event's agent_id. It is not a lifecycle event.
	PlanUpdate Type = "plan.update"
	// Error reports a failure of an agent's turn (provider error, limit hit).
	Error Type = "error"
	// Reset marks a /clear-equivalent reset or model switch; like Interrupt it
	// ends every active sub-agent as interrupted.
	Reset Type = "reset"
	// TeammateRecord carries a teammate's whole record as the reducer holds
	// it after a change (lifecycle.TeammateEvent). The bus derives it for
	// the views that render records (bus.Options.Records); no agent emits
	// it, and it is neither stored nor printed.
	TeammateRecord Type = "teammate.record"
	// ContextCompact: an agent's older turns were replaced by a summary
	// (ContextCompactData). It is not a lifecycle event.
	ContextCompact Type = "context.compact"
	// ThinkingDelta is a piece of the model's streamed thinking; it is not
	// part of the message's text.
	ThinkingDelta Type = "thinking.delta"
	// HookRun: a settings hook ran (HookRunData). It is not a lifecycle
	// event.
	HookRun Type = "hook.run"
	// ToolProgress: a running tool call reported progress (an MCP
	// server's notifications/progress); ToolProgressData, under the call's
	// tool_call_id. It is not a lifecycle event.
	ToolProgress Type = "tool.progress"
	// MessageDelivered: a message that was not the user's prompt went into
	// the agent's conversation as its user turn (MessageDeliveredData): a
	// background task's result, a teammate's message. It is not a
	// lifecycle event.
	MessageDelivered Type = "message.delivered"
	// MessageHeld: a background result waits in the lead's inbox for the
	// next prompt (runtime.Config.HoldWakes), or left it (Taken); the
	// lead's, MessageHeldData. Stored, so a session loaded before that
	// prompt still gives it. It is not a lifecycle event.
	MessageHeld Type = "message.held"
	// UserPrompt is a user's prompt as "atomic sessions export" writes it
	// among the events (UserPromptData); the bus never carries it (the
	// store keeps prompts apart).
	UserPrompt Type = "user.prompt"
)

// LeadID is the lead agent's id: the agent_id of everything the lead emits
// and the parent_agent_id of the agents it starts, and its name in a team
// (send_message to "lead"). It is the only spelling of it.
const LeadID = "lead"

// Event is one thing that happened. Data holds one of the payload types of
// this package (or another package's payload for agent.status); it is encoded
// as the "data" member.
type Event struct {
	Type          Type      `json:"type"`
	Time          time.Time `json:"time"`
	SessionID     string    `json:"session_id,omitempty"`
	AgentID       string    `json:"agent_id,omitempty"`
	ParentAgentID string    `json:"parent_agent_id,omitempty"`
	ToolCallID    string    `json:"tool_call_id,omitempty"`
	Data          any       `json:"data,omitempty"`
}

// Sink receives events. Implementations must be safe for concurrent use.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(Event)

// Emit calls f(e).
func (f SinkFunc) Emit(e Event) { f(e) }

// Discard is a Sink that drops everything.
var Discard Sink = SinkFunc(func(Event) {})

// Usage counts tokens (and cost where the price is known).
type Usage struct {
	InputTokens         int64   `json:"input_tokens"`
	OutputTokens        int64   `json:"output_tokens"`
	CacheReadTokens     int64   `json:"cache_read_input_tokens,omitempty"`
	CacheCreationTokens int64   `json:"cache_creation_input_tokens,omitempty"`
	ContextWindow       int64   `json:"context_window,omitempty"`
	CostUSD             float64 `json:"cost_usd,omitempty"`
}

// Add returns u with v's counts added (ContextWindow keeps the larger).
func (u Usage) Add(v Usage) Usage {
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CacheReadTokens += v.CacheReadTokens
	u.CacheCreationTokens += v.CacheCreationTokens
	u.CostUSD += v.CostUSD
	if v.ContextWindow > u.ContextWindow {
		u.ContextWindow = v.ContextWindow
	}
	return u
}

// Total is all tokens counted.
func (u Usage) Total() int64 {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheCreationTokens
}

// SessionStartData: a session (lead, sub-agent or teammate) began.
type SessionStartData struct {
	Model    string   `json:"model,omitempty"`
	Provider string   `json:"provider,omitempty"`
	Tools    []string `json:"tools,omitempty"`
	// Name is the agent's type or teammate name ("lead" for the lead).
	Name string `json:"name,omitempty"`
}

// MessageDeltaData: a piece of streamed assistant text.
type MessageDeltaData struct {
	Text string `json:"text"`
	// Discard says the text streamed so far for this message is void: the
	// request failed mid-stream and is being retried.
	Discard bool `json:"discard,omitempty"`
}

// ThinkingDeltaData: a piece of the model's streamed thinking.
type ThinkingDeltaData struct {
	Text string `json:"text"`
	// Discard says the thinking streamed so far for this message is void
	// (the request is being retried).
	Discard bool `json:"discard,omitempty"`
}

// Hook run outcomes (HookRunData.Outcome).
const (
	HookOK      = "ok"      // exit 0
	HookBlocked = "blocked" // exit 2, or a JSON decision that blocks or denies
	HookError   = "error"   // another exit status, or it could not start
	HookTimeout = "timeout" // killed at its timeout
)

// HookRunData: one command of a settings hook ran for Event (Claude Code's
// event name: PreToolUse, Stop …). Message is what the user is told (the
// reason of a block, the first line of a failure's stderr, a
// systemMessage); Source is the file that declared the hook.
type HookRunData struct {
	Event      string `json:"event"`
	Command    string `json:"command"`
	Outcome    string `json:"outcome"`
	DurationMS int64  `json:"duration_ms"`
	ExitCode   int    `json:"exit_code"`
	Tool       string `json:"tool,omitempty"`
	Message    string `json:"message,omitempty"`
	Source     string `json:"source,omitempty"`
}

// MessageDeliveredData: the text an agent was given.
type MessageDeliveredData struct {
	Text string `json:"text"`
}

// MessageHeldData: ID is the background task or shell whose result Text
// is; Taken says the lead's inbox gave it up (delivered, or read first
// with check_task/wait_for_task/bash_output).
type MessageHeldData struct {
	ID    string `json:"id"`
	Text  string `json:"text,omitempty"`
	Taken bool   `json:"taken,omitempty"`
}

// UserPromptData: what the user typed.
type UserPromptData struct {
	Text string `json:"text"`
}

// ToolProgressData: how far a running tool call is. Progress rises with
// each report; Total is 0 when unknown.
type ToolProgressData struct {
	Name     string  `json:"name"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// Line is the progress in a few words: "3/10 · indexing", "42 · indexing".
func (d ToolProgressData) Line() string {
	n := strconv.FormatFloat(d.Progress, 'f', -1, 64)
	if d.Total > 0 {
		n += "/" + strconv.FormatFloat(d.Total, 'f', -1, 64)
	}
	if d.Message == "" {
		return n
	}
	return n + " · " + d.Message
}

// MessageCompleteData: the assistant message ended; Text is all of it.
type MessageCompleteData struct {
	Text       string     `json:"text"`
	StopReason StopReason `json:"stop_reason,omitempty"`
}

// ToolStartData: a tool call began.
type ToolStartData struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
	// Queued is set on a task call that must wait for a concurrency slot,
	// so the agent it spawns is shown pending, never running, meanwhile.
	Queued bool `json:"queued,omitempty"`
	// SubagentID and SubagentSessionID name the agent a task call starts,
	// reserved before the call is announced, so the agent has one id and
	// its own session from its first event on.
	SubagentID        string `json:"subagent_id,omitempty"`
	SubagentSessionID string `json:"subagent_session_id,omitempty"`
}

// ToolCompleteData: a tool call returned. For a background task this is the
// spawn acknowledgement, not the end of the work.
type ToolCompleteData struct {
	Name    string `json:"name"`
	Success bool   `json:"success"`
	Result  string `json:"result,omitempty"`
	Error   string `json:"error,omitempty"`
	// Cancelled is set when the call was cut off by cancellation.
	Cancelled bool `json:"cancelled,omitempty"`
	// Images are the result's pictures (an MCP tool's screenshot), for
	// live views that show them (ACP); not stored: the agent's history
	// keeps them, and Result names each.
	Images []ToolImage `json:"-"`
}

// ToolImage is a picture in a tool's result.
type ToolImage struct {
	MediaType string
	Data      []byte // raw bytes, not base64
}

// SubagentStartData: a sub-agent session exists. The event's AgentID is the
// sub-agent's id, ToolCallID the task call that spawned it.
type SubagentStartData struct {
	AgentType   string `json:"agent_type"`
	Description string `json:"description,omitempty"`
	Prompt      string `json:"prompt,omitempty"`
	Background  bool   `json:"background,omitempty"`
	Model       string `json:"model,omitempty"`
	// Backend runs the sub-agent: a name of the backends table
	// (internal/backend's Known).
	Backend string `json:"backend,omitempty"`
	// Worktree is the git worktree an isolated sub-agent works in.
	Worktree string `json:"worktree,omitempty"`
	// Sandbox is the kernel sandbox of the agent's commands (read-only or
	// workspace-write); empty when they run unconfined.
	Sandbox string `json:"sandbox,omitempty"`
	// Worker names the remote worker running the sub-agent (NATS).
	Worker string `json:"worker,omitempty"`
}

// SubagentUpdateData: progress of a sub-agent.
type SubagentUpdateData struct {
	// CurrentTool is the tool the sub-agent runs, or ran last; empty: no
	// tool yet (an update naming none keeps the last one).
	CurrentTool string `json:"current_tool,omitempty"`
	ToolUses    int    `json:"tool_uses"`
	Usage       Usage  `json:"usage"`
	// Waiting is "slot" while the agent is queued for a concurrency slot.
	// (What approval it waits for is told by permission.requested.)
	Waiting string `json:"waiting,omitempty"`
	// Worker names the remote worker running the sub-agent (NATS).
	Worker string `json:"worker,omitempty"`
	// Note is what happened to a remote sub-agent that its row tells
	// ("restarted on worker-b", "waiting for worker-a: no word for 6s").
	Note string `json:"note,omitempty"`
	// Idle is set when the sub-agent's turn ended while work it started
	// (its own sub-agents, shells) still runs; the next update (it was
	// woken) clears it.
	Idle bool `json:"idle,omitempty"`
}

// SubagentCompleteData: the sub-agent really finished.
type SubagentCompleteData struct {
	Success   bool   `json:"success"`
	Result    string `json:"result,omitempty"`
	Error     string `json:"error,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
	ToolUses  int    `json:"tool_uses"`
	Usage     Usage  `json:"usage"`
}

// PermissionRequestedData: an agent asks for approval.
type PermissionRequestedData struct {
	RequestID string `json:"request_id"`
	AgentName string `json:"agent_name,omitempty"`
	// Path is the chain from the lead to the asking agent, "lead ›
	// reviewer-1 › explore-3"; empty for the lead.
	Path    string          `json:"path,omitempty"`
	Tool    string          `json:"tool"`
	Subject string          `json:"subject,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	// SessionRules are the rules "allow for this session" would add
	// (bash(go test:*)), one per command not yet allowed.
	SessionRules []string `json:"session_rules,omitempty"`
}

// PermissionResolvedData: the approval was decided.
type PermissionResolvedData struct {
	RequestID string `json:"request_id"`
	Allowed   bool   `json:"allowed"`
	Reason    string `json:"reason,omitempty"`
}

// UsageUpdateData: token counts for one agent and the run's total.
type UsageUpdateData struct {
	// Usage is the agent's whole usage so far (what the bus delivers, and
	// what an external CLI reports), or, with Delta, what one model request
	// used, which the reducer adds to the agent's usage.
	Usage Usage `json:"usage"`
	// Total is the run's usage: the bus sets it from the reducer, whatever
	// the emitter put there.
	Total Usage `json:"total"`
	// Delta says Usage is one request's, to add; false (the default, and
	// left out of the JSON) says it is the agent's running total.
	Delta bool `json:"delta,omitempty"`
	// Active counts sub-agents and teammates still working, when the lead
	// reports usage instead of complete.
	Active int `json:"active,omitempty"`
	// Context is the agent's context use in tokens as its loop knows it
	// (the last request's input, cache reads and writes included, plus its
	// answer; after a compaction, the estimate of the next request); the
	// window is Usage.ContextWindow. 0: not reported (external CLIs).
	Context int64 `json:"context_tokens,omitempty"`
	// Call is the model request a delta reports (Atomic's own loop), for
	// its trace span; the bus keeps it as the delta becomes a total.
	Call *ModelCall `json:"call,omitempty"`
}

// ModelCall is one model request: its model and provider, when it was
// sent, why the answer stopped and what that request alone used.
type ModelCall struct {
	Model      string     `json:"model"`
	Provider   string     `json:"provider,omitempty"`
	Start      time.Time  `json:"start"`
	StopReason StopReason `json:"stop_reason,omitempty"`
	Usage      Usage      `json:"usage"`
}

// Compaction triggers (ContextCompactData.Trigger).
const (
	CompactAuto    = "auto"     // the context passed the threshold
	CompactManual  = "manual"   // /compact
	CompactTooLong = "too_long" // the provider refused a request as too long
)

// ContextCompactData: an agent's history was summarised. Before and After
// are its context in tokens (estimates of the request it would send);
// Summarised counts the messages the summary replaced.
type ContextCompactData struct {
	Before     int64  `json:"before_tokens"`
	After      int64  `json:"after_tokens"`
	Trigger    string `json:"trigger"`
	Summarised int    `json:"summarised_messages"`
}

// TurnEndData: the lead's model stopped for now.
type TurnEndData struct {
	StopReason StopReason `json:"stop_reason,omitempty"`
	NumTurns   int        `json:"num_turns"`
	// Error is why the turn failed (StopError).
	Error string `json:"error,omitempty"`
	// Woken is set on a turn no user prompt started: the lead was woken
	// by background work that finished or a message delivered to it.
	Woken bool `json:"woken,omitempty"`
}

// CompleteData: the run's work is done.
type CompleteData struct {
	Result   string `json:"result,omitempty"`
	IsError  bool   `json:"is_error,omitempty"`
	Error    string `json:"error,omitempty"`
	NumTurns int    `json:"num_turns"`
	Usage    Usage  `json:"usage"`
	// Interrupted says the error is the user's interrupt (Esc, Ctrl+C,
	// SIGINT), not a failure.
	Interrupted bool `json:"interrupted,omitempty"`
}

// TeamMessageData: a message between lead and teammates.
type TeamMessageData struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Content string `json:"content"`
}

// TeammateStatusData: a teammate's status changed.
type TeammateStatusData struct {
	Name string `json:"name"`
	Role string `json:"role,omitempty"`
	// Type is the teammate's agent type (general-purpose by default).
	Type   string `json:"type,omitempty"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// PlanUpdateData: an agent's whole plan, in order.
type PlanUpdateData struct {
	Todos []Todo `json:"todos"`
}

// Todo is one item of a plan, in Claude Code's TodoWrite shape.
type Todo struct {
	Content string `json:"content"`
	// Status is pending, in_progress or completed.
	Status string `json:"status"`
	// ActiveForm is the item as it happens ("Running the tests"), shown
	// while it is in progress.
	ActiveForm string `json:"activeForm,omitempty"`
	ID         string `json:"id,omitempty"`
}

// InterruptData: the user interrupted.
type InterruptData struct {
	Reason string `json:"reason,omitempty"`
	// KeepBackground: only the lead's turn stops (with the sync agents it
	// waits on); background agents, their subtrees and teammates go on.
	KeepBackground bool `json:"keep_background,omitempty"`
}

// RetryData: a provider call failed and will be tried again after DelayMS.
// Attempt is the attempt about to be made (2 for the first retry), out of
// MaxAttempts allowed for this kind of failure.
type RetryData struct {
	Attempt     int    `json:"attempt"`
	MaxAttempts int    `json:"max_attempts"`
	DelayMS     int64  `json:"delay_ms"`
	Reason      string `json:"reason"`
	// Error is the failure in full, one line.
	Error string `json:"error,omitempty"`
}

// ResetData: the conversation was reset (/clear) or the model switched.
type ResetData struct {
	Reason string `json:"reason,omitempty"`
}

// ErrorData: a turn failed.
type ErrorData struct {
	Message string `json:"message"`
}

// Payload extracts a payload of type T from an event's Data, which may hold
// a T, a *T, or undecoded JSON (events read back from stream-json).
func Payload[T any](data any) (T, bool) {
	switch v := data.(type) {
	case T:
		return v, true
	case *T:
		if v != nil {
			return *v, true
		}
	case json.RawMessage:
		var t T
		if json.Unmarshal(v, &t) == nil {
			return t, true
		}
	}
	var zero T
	return zero, false
}
