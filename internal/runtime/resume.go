package runtime

import (
	"context"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/subagent"
)

// Resume continues a stored session in a new process.
type Resume struct {
	// Events are the session's recorded events, in order.
	Events []event.Event
	// History is the lead's saved conversation.
	History []provider.Message
	// Subagents are the sub-agents' saved conversations, by agent id: an
	// interrupted background one can be continued (resume_task).
	Subagents map[string][]provider.Message
}

// InterruptedReason is why work that was under way when Atomic died ends
// interrupted on resume.
const InterruptedReason = "interrupted: Atomic exited before it finished"

// resumed is what a Resume's events say about the session.
type resumed struct {
	state lifecycle.State
	total event.Usage // the run's last reported total
	// held are results held for a next prompt that never came.
	held []event.MessageHeldData
}

func replay(evs []event.Event) *resumed {
	r := &resumed{held: heldOf(evs)}
	for _, e := range evs {
		r.state.Apply(e)
		if e.AgentID != event.LeadID {
			continue
		}
		switch e.Type {
		case event.UsageUpdate:
			if d, ok := event.Payload[event.UsageUpdateData](e.Data); ok {
				r.total = d.Total
			}
		case event.Complete:
			if d, ok := event.Payload[event.CompleteData](e.Data); ok {
				r.total = d.Usage
			}
		}
	}
	return r
}

// restore carries a resumed session's counts (every agent's tool uses and
// usage) into the bus's reducer, and its agents' names into the namer, so
// a new agent never takes an old one's id.
func (r *Runtime) restore(old *resumed) {
	for _, rec := range old.state.Records() {
		if rec.IsShell() {
			r.shells.Taken(rec.ID)
			continue
		}
		r.mgr.Taken(rec.ID)
	}
	for id, t := range old.state.Tallies() {
		r.bus.Restore(id, t.ToolUses, t.Usage)
	}
	// What the stored total counts beyond the agents' own usage.update
	// events (a store written before every agent reported its own) is
	// the lead's.
	if rest := sub(old.total, r.bus.TotalUsage()); rest.Total() > 0 || rest.CostUSD > 0 {
		r.bus.Restore(event.LeadID, 0, r.bus.Usage(event.LeadID).Add(rest))
	}
}

// sub is u less v, floored at zero.
func sub(u, v event.Usage) event.Usage {
	return event.Usage{
		InputTokens: max(0, u.InputTokens-v.InputTokens), OutputTokens: max(0, u.OutputTokens-v.OutputTokens),
		CacheReadTokens:     max(0, u.CacheReadTokens-v.CacheReadTokens),
		CacheCreationTokens: max(0, u.CacheCreationTokens-v.CacheCreationTokens),
		CostUSD:             max(0, u.CostUSD-v.CostUSD),
	}
}

// offerResumable lets ResumeTask continue each native background
// sub-agent the crash interrupted, and reports whether there is one.
func (r *Runtime) offerResumable(old *resumed, histories map[string][]provider.Message) bool {
	found := false
	for _, rec := range old.state.Records() {
		crashed := rec.Status.Active() || rec.Session == lifecycle.SessionOpen
		h, saved := histories[rec.ID]
		if !saved && rec.Prompt != "" {
			// Killed before its first message reached the store (queued
			// for a slot, or its goroutine not yet run while the lead's
			// turn was committed): it did nothing yet, so its task is
			// all there is to continue.
			h, saved = []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: rec.Prompt}}}}, true
		}
		if !crashed || !rec.Background || !saved || (rec.Backend != "" && rec.Backend != backend.Native) {
			continue
		}
		// The record's name is its agent type (DisplayName only
		// capitalises explore; types are looked up case-insensitively).
		r.mgr.AddResumable(rec.ID, subagent.Resumable{Type: rec.Name, Description: rec.Description, History: h})
		found = true
	}
	return found
}

// ResumeTask continues a background sub-agent the crash interrupted
// (/tasks resume ID), from its saved history, as a new background task.
func (r *Runtime) ResumeTask(id string) error {
	_, err := r.mgr.ResumeTask(context.Background(), id, event.LeadID, "")
	return err
}

// interruptStale ends, as interrupted, every sub-agent and teammate the
// stored session left pending, running or background (or whose session
// never reported its end): the process that ran them is gone. Each end is
// emitted on the bus (subagent.complete and agent.status, teammate.status)
// so the store and every view record it.
func (r *Runtime) interruptStale(old *resumed) {
	now := r.cfg.Now()
	for _, rec := range old.state.Records() {
		if !rec.Status.Active() && rec.Session != lifecycle.SessionOpen {
			continue
		}
		done := event.Event{Type: event.SubagentComplete, Time: now, SessionID: rec.SessionID, AgentID: rec.ID,
			ParentAgentID: rec.ParentID, ToolCallID: rec.ToolCallID,
			Data: event.SubagentCompleteData{Cancelled: true, Error: InterruptedReason, ToolUses: rec.ToolUses, Usage: rec.Usage}}
		if rec.IsShell() {
			// No process of this run owns it: it cannot be waited for.
			done.Type, done.Data = event.ShellEnd, event.ShellEndData{ExitCode: -1, Interrupted: true, Reason: InterruptedReason}
		}
		if done.SessionID == "" {
			done.SessionID = r.cfg.SessionID
		}
		next, changed := lifecycle.Step(rec, done)
		r.bus.Emit(done)
		if changed && next.Status != rec.Status {
			r.bus.Emit(lifecycle.StatusEvent(done, next))
		}
	}
	for _, m := range old.state.Teammates() {
		if !m.Status.Active() {
			continue
		}
		r.bus.Emit(event.Event{Type: event.TeammateStatus, Time: now, SessionID: r.cfg.SessionID, AgentID: m.AgentID,
			ParentAgentID: event.LeadID, Data: event.TeammateStatusData{Name: m.Name, Role: m.Role,
				Status: string(lifecycle.MateInterrupted), Error: InterruptedReason}})
	}
}
