package ui

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/lifecycle/lifecycletest"
)

// TestPropertyTheTUIAgreesWithTheReducerOnNestedTreesWithShells feeds the
// lifecycle property test's random runs (agents up to depth 4, background
// shells under any of them, exits, stops, failures, cancels, interrupts) to
// the UI model and to one reducer: after every event every row the UI
// shows, /tasks and the active count are the reducer's records, and each
// shell's row sits in the tree of the agent that started it.
func TestPropertyTheTUIAgreesWithTheReducerOnNestedTreesWithShells(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		m := New(Config{Backend: &fakeBackend{}, Now: func() time.Time { return t0 }})
		var ref lifecycle.State
		sched := lifecycletest.NewSchedule(lifecycletest.DrawTree(rt))
		for step := 0; ; step++ {
			var e event.Event
			if rapid.IntRange(0, 40).Draw(rt, "interrupt") == 0 {
				e = ev(event.Interrupt, t0, event.LeadID, "", event.InterruptData{})
			} else {
				var ok bool
				if e, ok = sched.Next(rt); !ok {
					break
				}
			}
			e.Time = at(float64(step))
			feedEvents(m, e)
			ref.Apply(e)
			checkAgreement(rt, m, &ref, step, e)
			for _, nd := range sched.Nodes {
				if !nd.Shell || nd.Parent == event.LeadID {
					continue
				}
				if sh, ok := m.treeByAgent[nd.ID]; ok && sh != m.treeByAgent[nd.Parent] {
					rt.Fatalf("step %d: shell %s is not in the tree of %s, which started it", step, nd.ID, nd.Parent)
				}
			}
		}
	})
}
