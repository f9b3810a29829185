package lifecycle

import (
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"pgregory.net/rapid"
)

// drawLeadRecord is any record the lead may have: none yet, or one in any
// status, with or without its session and model.
func drawLeadRecord(t *rapid.T) Record {
	if rapid.IntRange(0, 5).Draw(t, "none") == 0 {
		return Record{}
	}
	r := Record{ID: event.LeadID, Name: event.LeadID, StartedAt: time.Unix(1, 0)}
	r.Status = rapid.SampledFrom([]Status{Pending, Running, Background, Completed, Error, Interrupted}).Draw(t, "status")
	r.SessionID = rapid.SampledFrom([]string{"", "s1"}).Draw(t, "session")
	r.Model = rapid.SampledFrom([]string{"", "m1"}).Draw(t, "model")
	if r.Status.Terminal() {
		r.Duration, r.Result = time.Second, "done"
	}
	return r
}

// drawLeadEvent is any event the reducer may see, mostly the lead's.
func drawLeadEvent(t *rapid.T) event.Event {
	e := event.Event{Time: time.Unix(int64(rapid.IntRange(2, 9).Draw(t, "time")), 0)}
	e.AgentID = rapid.SampledFrom([]string{event.LeadID, event.LeadID, "explore-1"}).Draw(t, "agent")
	e.SessionID = rapid.SampledFrom([]string{"", "s1", "s2"}).Draw(t, "eventSession")
	e.Type = rapid.SampledFrom([]event.Type{event.SessionStart, event.MessageDelta, event.MessageComplete,
		event.ToolStart, event.ToolComplete, event.UsageUpdate, event.Complete, event.Interrupt, event.Reset,
		event.AgentStatus}).Draw(t, "type")
	switch e.Type {
	case event.SessionStart:
		e.Data = event.SessionStartData{Model: rapid.SampledFrom([]string{"", "m1", "m2"}).Draw(t, "startModel")}
	case event.Complete:
		e.Data = event.CompleteData{Result: "r", IsError: rapid.Bool().Draw(t, "isError")}
	case event.MessageDelta:
		e.Data = event.MessageDeltaData{Text: "x"}
	}
	return e
}

// The lead's fast path skips StepLead only where StepLead would change
// nothing: whenever leadSteady holds, StepLead returns the record as it
// was and reports no change.
func TestTheLeadsFastPathSkipsOnlyEventsThatLeaveItsRecordAsItWas(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r, e := drawLeadRecord(t), drawLeadEvent(t)
		if !leadSteady(&r, &e) {
			return
		}
		next, changed := StepLead(r, e)
		if changed || next != r {
			t.Fatalf("leadSteady skipped %s (session %q) on %+v; StepLead makes %+v (changed %v)", e.Type, e.SessionID, r, next, changed)
		}
	})
}

// Over whole runs of the lead's events, the state's lead record is the
// one StepLead alone folds, with the reducer's tally.
func TestTheLeadsRecordIsStepLeadsFoldOverAnyRun(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s State
		var want Record
		for i, n := 0, rapid.IntRange(1, 40).Draw(t, "len"); i < n; i++ {
			e := drawLeadEvent(t)
			s.Apply(e)
			if next, changed := StepLead(want, e); changed {
				want = next
			}
			if want.ID != "" {
				want.ToolUses, want.Usage = s.ToolUses(event.LeadID), s.Usage(event.LeadID)
			}
			got, _ := s.Lead()
			if got != want {
				t.Fatalf("after %s (session %q) the lead is %+v; StepLead folds %+v", e.Type, e.SessionID, got, want)
			}
		}
	})
}
