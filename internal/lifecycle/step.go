package lifecycle

import (
	"cmp"
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Step is the pure transition of one record: it applies e, which must concern
// r (State does the routing), and returns the new record and whether anything
// changed. Step(Record{}, e) creates a record from a task tool.start or a
// subagent.start; a zero record is left zero by every other event.
//
// The transitions are those of SPEC §2. Terminal statuses are sticky: once a
// record is completed, error or interrupted, no event changes its status or
// Duration.
func Step(r Record, e event.Event) (Record, bool) {
	if r.IsShell() && !shellMoves(e.Type) {
		return r, false // agent events never move a shell
	}
	var next Record
	switch e.Type {
	case event.ToolStart:
		next = stepToolStart(r, e)
	case event.SubagentStart:
		next = stepSubagentStart(r, e)
	case event.SubagentUpdate:
		next = stepSubagentUpdate(r, e)
	case event.ToolComplete:
		next = stepToolComplete(r, e)
	case event.SubagentComplete:
		next = stepSubagentComplete(r, e)
	case event.Interrupt, event.Reset:
		next = stepInterrupt(r, e)
	case event.ShellStart, event.ShellOutput, event.ShellEnd:
		next = stepShell(r, e)
	default:
		return r, false
	}
	return next, next != r
}

// isTaskTool reports whether a tool name is the task tool ("Task" is how
// Claude Code spells it).
func isTaskTool(name string) bool {
	return strings.EqualFold(name, "task")
}

// stepToolStart creates the eager record of a task call. A record that
// already exists is left alone (a repeated tool.start is not a new agent).
func stepToolStart(r Record, e event.Event) Record {
	if r.ID != "" || e.ToolCallID == "" {
		return r
	}
	d, ok := event.Payload[event.ToolStartData](e.Data)
	if !ok || !isTaskTool(d.Name) {
		return r
	}
	// A malformed input still spawns a visible record with what could be
	// read: the tool itself reports the bad input, and the record ends
	// with it.
	in, _ := event.ParseTaskInput(d.Input)
	agentType, bg := in.Type(), in.Background
	status, waiting := Running, ""
	switch {
	case bg:
		status = Background
	case d.Queued:
		status, waiting = Pending, WaitingSlot
	}
	id := d.SubagentID
	if id == "" {
		id = e.ToolCallID
	}
	return Record{
		Waiting:     waiting,
		ID:          id,
		SessionID:   d.SubagentSessionID,
		ToolCallID:  e.ToolCallID,
		ParentID:    e.AgentID,
		Name:        DisplayName(agentType),
		Description: in.Description,
		Prompt:      in.Prompt,
		Background:  bg,
		Model:       in.Model,
		Status:      status,
		StartedAt:   e.Time,
	}
}

// stepSubagentStart merges the sub-agent's session into r (the eager record
// of its task call), or creates the record when there is none. The status is
// kept, except that an active record the runtime reports as background
// becomes background.
func stepSubagentStart(r Record, e event.Event) Record {
	d, ok := event.Payload[event.SubagentStartData](e.Data)
	if !ok {
		return r
	}
	if r.ID == "" {
		id := e.AgentID
		if id == "" {
			id = e.ToolCallID
		}
		if id == "" {
			return r
		}
		r = Record{
			ID:         id,
			ToolCallID: e.ToolCallID,
			ParentID:   e.ParentAgentID,
			Name:       DisplayName(event.DefaultAgentType),
			Status:     Running,
			StartedAt:  e.Time,
		}
	}
	if e.AgentID != "" {
		r.ID = e.AgentID
	}
	if e.SessionID != "" {
		r.SessionID = e.SessionID
	}
	if r.Session == "" {
		r.Session = SessionOpen // a completion that overtook the start has closed it
	}
	if r.ToolCallID == "" {
		r.ToolCallID = e.ToolCallID
	}
	if r.ParentID == "" {
		r.ParentID = e.ParentAgentID
	}
	if t := strings.TrimSpace(d.AgentType); t != "" {
		r.Name = DisplayName(t)
	}
	// What the start names fills in; what it leaves out keeps the eager
	// record's value.
	r.Description, r.Prompt, r.Model = cmp.Or(d.Description, r.Description), cmp.Or(d.Prompt, r.Prompt), cmp.Or(d.Model, r.Model)
	r.Backend, r.Worker = cmp.Or(d.Backend, r.Backend), cmp.Or(d.Worker, r.Worker)
	r.Worktree, r.Sandbox = cmp.Or(d.Worktree, r.Worktree), cmp.Or(d.Sandbox, r.Sandbox)
	if d.Background && !r.Background {
		r.Background = true
		if r.Status.Active() {
			r.Status = Background
		}
	}
	return r
}

// stepSubagentUpdate records progress. An update that names no current
// tool (a usage report, or a CLI's report between two calls) keeps the last
// one: once an agent has run a tool its row shows that tool, never
// "Initializing…" again. A sync agent waiting for a slot is
// pending, and running again on the next update that does not wait for one;
// a background agent stays background.
func stepSubagentUpdate(r Record, e event.Event) Record {
	if r.ID == "" || r.Status.Terminal() {
		return r
	}
	d, ok := event.Payload[event.SubagentUpdateData](e.Data)
	if !ok {
		return r
	}
	// Tool uses and usage are the reducer's own tally (State), not the
	// update's.
	if d.CurrentTool != "" {
		r.CurrentTool = d.CurrentTool
	}
	if d.Worker != "" {
		r.Worker = d.Worker
	}
	r.Note = d.Note
	r.TurnEnded = d.Idle
	// Progress says only whether the agent waits for a slot; approvals it
	// waits for come from permission events (State).
	r.Waiting = ""
	if d.Waiting == WaitingSlot {
		r.Waiting = WaitingSlot
	}
	if !r.Background {
		switch {
		case r.Status == Running && d.Waiting == WaitingSlot:
			r.Status = Pending
		case r.Status == Pending && d.Waiting != WaitingSlot:
			r.Status = Running
		}
	}
	return r
}

// stepToolComplete handles the return of the task call. For a sync agent it
// is the end of the work. For a background agent a success is only the spawn
// acknowledgement: status, current tool and duration stay, the ack is
// attached. A failed background call means the spawn itself failed, so no
// agent is running: the record ends as error (or interrupted if cancelled).
func stepToolComplete(r Record, e event.Event) Record {
	if r.ID == "" {
		return r
	}
	d, ok := event.Payload[event.ToolCompleteData](e.Data)
	if !ok {
		return r
	}
	if r.Background && d.Success {
		r.Ack = d.Result
		return r
	}
	if r.Status.Terminal() {
		return r
	}
	switch {
	case d.Success:
		r.Result = d.Result
		return finish(r, Completed, e.Time)
	case d.Cancelled:
		r.Error = d.Error
		return finish(r, Interrupted, e.Time)
	default:
		r.Error = firstNonEmpty(d.Error, d.Result, "task failed")
		return finish(r, Error, e.Time)
	}
}

// stepSubagentComplete is the real end of an agent, sync or background. It is
// a no-op on a record that already ended.
func stepSubagentComplete(r Record, e event.Event) Record {
	if r.ID == "" {
		return r
	}
	r.Session = SessionClosed // the session has ended, whatever the status says
	if r.Status.Terminal() {
		return r
	}
	d, ok := event.Payload[event.SubagentCompleteData](e.Data)
	if !ok {
		return r
	}
	r.Result = d.Result
	switch {
	case d.Cancelled:
		r.Error = d.Error
		return finish(r, Interrupted, e.Time)
	case d.Success:
		return finish(r, Completed, e.Time)
	default:
		r.Error = firstNonEmpty(d.Error, "sub-agent failed")
		return finish(r, Error, e.Time)
	}
}

// stepInterrupt ends an active record as interrupted (interrupt, /clear,
// model switch, quit: the work is cancelled).
func stepInterrupt(r Record, e event.Event) Record {
	if r.ID == "" || r.Status.Terminal() {
		return r
	}
	if r.Background && keepsBackground(e) {
		return r
	}
	return finish(r, Interrupted, e.Time)
}

// finish moves r to the terminal status s at time t, setting its Duration
// (the only place it is set) and clearing what only an active agent has.
func finish(r Record, s Status, t time.Time) Record {
	r.Status = s
	r.Duration = 0
	if !r.StartedAt.IsZero() && t.After(r.StartedAt) {
		r.Duration = t.Sub(r.StartedAt)
	}
	r.CurrentTool = ""
	r.Waiting = ""
	r.TurnEnded, r.Held = false, ""
	return r
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// keepsBackground reports whether e is an interrupt of the lead's turn
// alone, which background agents outlive.
func keepsBackground(e event.Event) bool {
	d, ok := event.Payload[event.InterruptData](e.Data)
	return ok && e.Type == event.Interrupt && d.KeepBackground
}
