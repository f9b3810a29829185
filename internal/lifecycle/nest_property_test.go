package lifecycle

import (
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle/lifecycletest"
	"pgregory.net/rapid"
)

// oracleBusy counts, from the records alone, the records beneath id that
// are not terminal.
func oracleBusy(recs []Record, id string) int {
	parent := map[string]string{}
	for _, r := range recs {
		parent[r.ID] = r.ParentID
	}
	n := 0
	for _, r := range recs {
		if r.Status.Terminal() {
			continue
		}
		for p, k := r.ParentID, 0; p != "" && k <= len(recs); p, k = parent[p], k+1 {
			if p == id {
				n++
				break
			}
		}
	}
	return n
}

// TestNoAgentCompletesWhileWorkItStartedRunsAtAnyDepth feeds random trees
// of sync and background agents up to depth 4 with background shells under
// any of them (exits 0 and non-zero, kill_shell stops), failures,
// cascading cancels, turn ends and interrupts, in random orders that keep
// only what causality does (an agent starts its children before it ends;
// the lead completes once settled). After every event: no record is
// completed while a record beneath it (agent or shell) runs, a record is
// waiting exactly when its turn ended (or its end came) with work beneath
// it running, a view fed by the agent.status records agrees with the
// reducer, and the lead's complete comes last and once; at the end nothing
// is left active and every shell not interrupted ended as it exited.
func TestNoAgentCompletesWhileWorkItStartedRunsAtAnyDepth(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sched := lifecycletest.NewSchedule(lifecycletest.DrawTree(t))
		var s State
		var view View
		completes, interrupted := 0, false
		leadTurnEnded := false
		now := t0
		apply := func(step int, e event.Event) {
			now = now.Add(time.Duration(rapid.IntRange(0, 3000).Draw(t, "gapMs")) * time.Millisecond)
			e.Time = now
			if completes > 0 && e.Type != event.Complete {
				before := s.Settled()
				defer func() {
					if before && !s.Settled() {
						t.Fatalf("step %d (%s %s): the run was unsettled after the lead's complete", step, e.Type, e.AgentID)
					}
				}()
			}
			for _, r := range s.Apply(e) {
				view.Put(r)
			}
		}
		for step := 0; ; step++ {
			if rapid.IntRange(0, 40).Draw(t, "interrupt") == 0 {
				apply(step, interruptAt(time.Time{}))
				interrupted = true
			}
			e, ok := sched.Next(t)
			if !ok {
				break
			}
			apply(step, e)
			leadTurnEnded = leadTurnEnded || sched.LeadCallsOut()
			if leadTurnEnded && completes == 0 && s.Settled() {
				apply(step, event.Event{Type: event.Complete, AgentID: lead, Data: event.CompleteData{Result: "done"}})
				completes++
			}
			checkNest(t, step, &s, &view)
		}
		if completes != 1 {
			t.Fatalf("the lead completed %d times (want once); settled %v, records %+v", completes, s.Settled(), s.Records())
		}
		if s.Active() != 0 {
			t.Fatalf("after everything ended, %d records are still active: %+v", s.Active(), s.Records())
		}
		if interrupted {
			return
		}
		want := [...]Status{lifecycletest.Success: Completed, lifecycletest.Failure: Error, lifecycletest.Cancelled: Interrupted}
		for _, nd := range sched.Nodes {
			if r, _ := s.Get(nd.ID); nd.Shell && r.Status != want[nd.Outcome] {
				t.Fatalf("shell %s ended %s, want %s: %+v", nd.ID, r.Status, want[nd.Outcome], r)
			}
		}
	})
}

// checkNest checks the nesting invariants of s and that view agrees.
func checkNest(t *rapid.T, step int, s *State, view *View) {
	recs := s.Records()
	for _, r := range recs {
		busy := oracleBusy(recs, r.ID)
		if s.Busy(r.ID) != busy {
			t.Fatalf("step %d: Busy(%s) = %d, %d records beneath it run", step, r.ID, s.Busy(r.ID), busy)
		}
		if r.Status == Completed && busy > 0 {
			t.Fatalf("step %d: %s is completed while %d records beneath it run", step, r.ID, busy)
		}
		wantWaiting := !r.Status.Terminal() && busy > 0 && (r.TurnEnded || r.Held != "")
		if (r.Status == Waiting) != wantWaiting {
			t.Fatalf("step %d: %s is %s (turn ended %v, held %q) with %d beneath it running", step, r.ID, r.Status, r.TurnEnded, r.Held, busy)
		}
		if v, ok := view.Get(r.ID); !ok || v != r {
			t.Fatalf("step %d: the view has %+v, the reducer %+v", step, v, r)
		}
	}
	if view.Counts() != s.Counts() {
		t.Fatalf("step %d: the view counts %+v, the reducer %+v", step, view.Counts(), s.Counts())
	}
}
