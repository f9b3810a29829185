package lifecycle

import (
	"fmt"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"pgregory.net/rapid"
)

// node is one agent of a random tree: who started it, how, and how it
// ends.
type node struct {
	id, call, parent string
	depth            int
	bg               bool
	// outcome: 0 success, 1 failure, 2 cancelled (a cancel of it or of an
	// ancestor cascades: every agent below ends cancelled too).
	outcome int
	// pre are its events up to its end, end its ending events.
	pre, end []event.Event
	children []int
}

// drawTree draws up to 12 agents in a tree under the lead, at most 4
// levels deep, each sync or background, with cancels cascading down.
func drawTree(t *rapid.T) []node {
	n := rapid.IntRange(1, 12).Draw(t, "agents")
	nodes := make([]node, n)
	for i := range nodes {
		nd := node{id: fmt.Sprintf("agent-%d", i), call: fmt.Sprintf("call-%d", i), parent: lead, depth: 1}
		if i > 0 {
			if p := rapid.IntRange(-1, i-1).Draw(t, "parent"); p >= 0 && nodes[p].depth < 4 {
				nd.parent, nd.depth = nodes[p].id, nodes[p].depth+1
				nodes[p].children = append(nodes[p].children, i)
			}
		}
		nd.bg = rapid.Bool().Draw(t, "bg")
		nd.outcome = rapid.IntRange(0, 2).Draw(t, "outcome")
		nodes[i] = nd
	}
	// A cancel stops the subtree: parents come before their children.
	for i := range nodes {
		for _, c := range nodes[i].children {
			if nodes[i].outcome == 2 {
				nodes[c].outcome = 2
			}
		}
	}
	for i := range nodes {
		nodes[i].pre, nodes[i].end = nodeEvents(t, nodes[i])
	}
	return nodes
}

// nodeEvents is nd's own sequence: its task call (emitted by its parent),
// its start and progress, turn ends and wake-ups while it has children,
// then its end (subagent.complete, and a sync call's return).
func nodeEvents(t *rapid.T, nd node) (pre, end []event.Event) {
	mode := "sync"
	if nd.bg {
		mode = "background"
	}
	in := fmt.Sprintf(`{"description":"task %s","prompt":"do it","mode":%q}`, nd.id, mode)
	start := event.Event{Type: event.ToolStart, AgentID: nd.parent, ToolCallID: nd.call,
		Data: event.ToolStartData{Name: "task", Input: []byte(in), SubagentID: nd.id, SubagentSessionID: "s/" + nd.id}}
	sub := func(typ event.Type, d any) event.Event {
		return event.Event{Type: typ, AgentID: nd.id, ParentAgentID: nd.parent, ToolCallID: nd.call, Data: d}
	}
	pre = []event.Event{start, sub(event.SubagentStart, event.SubagentStartData{AgentType: "general-purpose", Background: nd.bg})}
	for range rapid.IntRange(0, 3).Draw(t, "turns") {
		pre = append(pre, sub(event.SubagentUpdate, event.SubagentUpdateData{CurrentTool: "read"}))
		if len(nd.children) > 0 && rapid.Bool().Draw(t, "idle") {
			pre = append(pre, sub(event.SubagentUpdate, event.SubagentUpdateData{Idle: true}))
		}
	}
	d := event.SubagentCompleteData{Success: nd.outcome == 0, Cancelled: nd.outcome == 2, Result: "result of " + nd.id}
	tc := event.ToolCompleteData{Name: "task", Success: nd.outcome == 0, Cancelled: nd.outcome == 2, Result: d.Result}
	if nd.outcome == 1 {
		d.Error, tc.Error = "failed", "failed"
	}
	if nd.bg {
		tc = event.ToolCompleteData{Name: "task", Success: true, Result: "started " + nd.id}
		// The spawn acknowledgement comes once the spawn has returned.
		pre = append(pre[:2], append([]event.Event{{Type: event.ToolComplete, AgentID: nd.parent, ToolCallID: nd.call, Data: tc}}, pre[2:]...)...)
		return pre, []event.Event{sub(event.SubagentComplete, d)}
	}
	ret := event.Event{Type: event.ToolComplete, AgentID: nd.parent, ToolCallID: nd.call, Data: tc}
	if rapid.Bool().Draw(t, "returnFirst") {
		return pre, []event.Event{ret, sub(event.SubagentComplete, d)}
	}
	return pre, []event.Event{sub(event.SubagentComplete, d), ret}
}

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
// of sync and background agents up to depth 4, with failures, cascading
// cancels, turn ends and interrupts, in random orders that keep only what
// causality does (an agent starts its children before it ends; the lead
// completes once settled). After every event: no record is completed
// while a record beneath it runs, a record is waiting exactly when its
// turn ended (or its end came) with work beneath it running, a view fed
// by the agent.status records agrees with the reducer, and the lead's
// complete comes last and once; at the end nothing is left active.
func TestNoAgentCompletesWhileWorkItStartedRunsAtAnyDepth(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := drawTree(t)
		// Each node's queue: pre, then end once every child has been
		// spawned (tool.start, subagent.start: a parent starts its
		// children before it ends).
		next := make([]int, len(nodes))
		started := func(i int) bool { return next[i] >= 2 }
		eligible := func(i int) bool {
			nd := nodes[i]
			if next[i] >= len(nd.pre)+len(nd.end) {
				return false
			}
			if next[i] == 0 && nd.parent != lead {
				// Its task call comes from its parent, once the parent runs.
				for j := range nodes {
					if nodes[j].id == nd.parent && next[j] < 2 {
						return false
					}
				}
			}
			if next[i] >= len(nd.pre) {
				for _, c := range nd.children {
					if !started(c) {
						return false
					}
				}
			}
			return true
		}
		var s State
		var view View
		completes := 0
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
			var live []int
			for i := range nodes {
				if eligible(i) {
					live = append(live, i)
				}
			}
			if len(live) == 0 {
				break
			}
			if rapid.IntRange(0, 40).Draw(t, "interrupt") == 0 {
				apply(step, interruptAt(time.Time{}))
			}
			i := rapid.SampledFrom(live).Draw(t, "pick")
			nd := nodes[i]
			if next[i] < len(nd.pre) {
				apply(step, nd.pre[next[i]])
			} else {
				apply(step, nd.end[next[i]-len(nd.pre)])
			}
			next[i]++

			leadTurnEnded = leadTurnEnded || allLeadCallsOut(nodes, next)
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
	})
}

// allLeadCallsOut reports whether every agent the lead starts has been
// spawned: its turn can end.
func allLeadCallsOut(nodes []node, next []int) bool {
	for i, nd := range nodes {
		if nd.parent == lead && next[i] < 2 {
			return false
		}
	}
	return true
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
