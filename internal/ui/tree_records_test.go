package ui

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

func TestABackgroundAgentIsNotShownFinishedWhenItsSpawnAckComesBeforeItsEnd(t *testing.T) {
	m, _, c := newTestModel(t, 100, 30)
	feedEvents(m,
		namedTaskStart("c1", "explore-1", "explore", "Slow survey", "background"),
		subStart(at(0), "explore-1", "c1", "explore", "Slow survey", true),
		// The task tool returns at once (the spawn's ack): a re-derivation
		// that takes a task's tool.complete for its end shows it done here.
		taskReturn(at(1), "c1", "Started explore-1 in the background.", true),
	)
	c.Set(at(5))
	f := frame(m)
	if !strings.Contains(f, "Running 1 Explore agent") || strings.Contains(f, "finished") {
		t.Fatalf("the agent is shown done on its spawn's ack:\n%s", f)
	}
	if m.activeAgents() != 1 {
		t.Fatalf("the status line counts %d active agents, want 1", m.activeAgents())
	}
	feedEvents(m, subDone(at(9), "explore-1", "c1", 0, "Surveyed."))
	if f := frame(m); !strings.Contains(f, "explore-1 finished (9s)") || !strings.Contains(f, "1 Explore agent finished") {
		t.Fatalf("the agent's real end is not shown:\n%s", f)
	}
}

func TestTheTreeShowsTheRecordAnAgentStatusCarriesWhateverEventsCameBefore(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 30)
	feedEvents(m,
		namedTaskStart("c1", "explore-1", "explore", "Slow survey", "background"),
		subStart(at(0), "explore-1", "c1", "explore", "Slow survey", true),
	)
	// A resumed run reports an agent its crashed process left running as
	// interrupted by an agent.status of its own (the new bus's reducer
	// never saw the agent): no event of the agent says so, the record
	// does, and the tree shows the record.
	rec, ok := m.trees[0].recs.Get("explore-1")
	if !ok {
		t.Fatal("no record of explore-1 in the tree")
	}
	rec.Status, rec.Error, rec.Duration, rec.Session = lifecycle.Interrupted, "interrupted: Atomic exited", 4e9, lifecycle.SessionClosed
	done := ev(event.SubagentComplete, at(4), "explore-1", "c1", event.SubagentCompleteData{Cancelled: true, Error: rec.Error})
	m.Update(eventsMsg{Events: []event.Event{lifecycle.StatusEvent(done, rec)}})
	f := frame(m)
	if !strings.Contains(f, "1 Explore agent finished · 1 interrupted") || m.activeAgents() != 0 {
		t.Fatalf("the tree does not show the record agent.status carried:\n%s", f)
	}
}
