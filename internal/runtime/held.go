package runtime

import (
	"github.com/atomic-agent/atomic/internal/event"
)

// holds reports whether the lead's wake-ups wait for the next prompt
// (Config.HoldWakes; Atomic's own lead only).
func (r *Runtime) holds() bool { return r.cfg.HoldWakes && r.cfg.NewLead == nil }

// notifyLead queues the result text of background work id for the lead,
// decided when its next request is built (claim false: the lead read it
// meanwhile). A result held for the next prompt is recorded as held, then
// as taken once it reaches the lead by any path (onClaim: the inbox,
// check_task, wait_for_task, bash_output), so a session loaded before that
// prompt gives it (resumeHeld) and one loaded after does not again.
func (r *Runtime) notifyLead(id, text string, claim, claimed func() bool, onClaim func(func())) {
	if r.holds() {
		r.Emit(event.MessageHeld, event.MessageHeldData{ID: id, Text: text})
		// After the held event: a claim already made records taken now.
		onClaim(func() { r.Emit(event.MessageHeld, event.MessageHeldData{ID: id, Taken: true}) })
	}
	r.lead.DeliverLazy(func() (string, bool) { return text, claim() }, func() bool { return !claimed() })
}

// heldOf lists, in order, the results the stored events held for the
// lead's next prompt and no prompt took: the session ended first. A reset
// (/clear) emptied the inbox.
func heldOf(evs []event.Event) []event.MessageHeldData {
	var out []event.MessageHeldData
	for _, e := range evs {
		switch {
		case e.AgentID != event.LeadID:
		case e.Type == event.Reset:
			out = nil
		case e.Type == event.MessageHeld:
			d, ok := event.Payload[event.MessageHeldData](e.Data)
			if !ok {
				continue
			}
			out = removeHeld(out, d.ID)
			if !d.Taken {
				out = append(out, d)
			}
		}
	}
	return out
}

func removeHeld(held []event.MessageHeldData, id string) []event.MessageHeldData {
	out := held[:0]
	for _, h := range held {
		if h.ID != id {
			out = append(out, h)
		}
	}
	return out
}

// resumeHeld gives the lead, with its next prompt, each result a loaded
// session held and never delivered: once, as the first process would
// have (taken is recorded when it is).
func (r *Runtime) resumeHeld(held []event.MessageHeldData) {
	for _, h := range held {
		id, text := h.ID, h.Text
		r.lead.DeliverLazy(func() (string, bool) {
			r.Emit(event.MessageHeld, event.MessageHeldData{ID: id, Taken: true})
			return text, true
		}, func() bool { return true })
	}
}
