package lifecycle

import (
	"strings"

	"github.com/atomic-agent/atomic/internal/event"
)

// StepLead is the pure transition of the lead's record (agent id
// event.LeadID) on one of the lead's own events:
//   - the lead's first event creates its record, running;
//   - complete ends it: completed, interrupted when the user stopped
//     it, or error when the run failed;
//   - any later event of the lead (a new prompt's turn, a wake-up) makes
//     a terminal lead running again, from that event's time;
//   - interrupt, reset and agent.status change nothing: an interrupted
//     run still ends with complete.
//
// So the lead is terminal exactly while its last event was complete. Its
// tool uses and usage are the reducer's tally (State), not Step's.
func StepLead(r Record, e event.Event) (Record, bool) {
	if e.AgentID != event.LeadID {
		return r, false
	}
	switch e.Type {
	case event.Interrupt, event.Reset, event.AgentStatus:
		return r, false
	}
	next := r
	if next.ID == "" {
		next = Record{ID: event.LeadID, Name: event.LeadID, Status: Running, StartedAt: e.Time}
	}
	if next.SessionID == "" {
		next.SessionID = e.SessionID
	}
	if d, ok := event.Payload[event.SessionStartData](e.Data); ok && e.Type == event.SessionStart && d.Model != "" {
		next.Model = d.Model
	}
	if e.Type != event.Complete {
		if next.Status.Terminal() {
			next.Status, next.StartedAt, next.Duration = Running, e.Time, 0
			next.Result, next.Error = "", ""
		}
		return next, next != r
	}
	if next.Status.Terminal() {
		return r, false // a second complete with nothing between: already ended
	}
	d, _ := event.Payload[event.CompleteData](e.Data)
	next.Result, next.Error = d.Result, ""
	status := Completed
	switch {
	case d.IsError && leadInterrupted(d):
		status, next.Error = Interrupted, firstNonEmpty(d.Error, "interrupted")
	case d.IsError:
		status, next.Error = Error, firstNonEmpty(d.Error, "the run failed")
	}
	return finish(next, status, e.Time), true
}

// leadInterrupted reports whether a failed complete is the user's
// interrupt: its flag, or, in sessions saved before the flag, the error
// the runtime words it with (runtime.ErrInterrupted).
func leadInterrupted(d event.CompleteData) bool {
	return d.Interrupted || strings.HasPrefix(d.Error, "interrupted: ")
}

// leadSteady reports that StepLead would return *r unchanged for e,
// decided without copying the record: most of the lead's events (its
// streamed text above all) are of a running lead that already has its
// session, and change nothing in its record. When it reports false,
// StepLead decides.
func leadSteady(r *Record, e *event.Event) bool {
	switch e.Type {
	case event.SessionStart, event.Complete:
		return false
	}
	return r.ID != "" && !r.Status.Terminal() && (r.SessionID != "" || e.SessionID == "")
}

// applyLead folds one of the lead's events into its record.
func (s *State) applyLead(e event.Event) {
	if !leadSteady(&s.lead, &e) {
		if next, changed := StepLead(s.lead, e); changed {
			s.lead = next
		}
	}
	s.syncLead()
}

// syncLead copies the lead's tally into its record (one lookup).
func (s *State) syncLead() {
	if s.lead.ID == "" {
		return
	}
	if t := s.tallies[event.LeadID]; t != nil {
		s.lead.ToolUses, s.lead.Usage = t.toolUses, t.usage
	} else {
		s.lead.ToolUses, s.lead.Usage = 0, event.Usage{}
	}
}

// Lead returns the lead's record, once the lead has emitted anything.
func (s *State) Lead() (Record, bool) {
	return s.lead, s.lead.ID != ""
}
