package ui

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// TestPropertyTheTUIAgreesWithTheReducerAtEveryStep feeds random event
// orders of several sub-agents (task calls from one or several lead
// messages, progress, approvals, completions, interrupts) to the UI model
// and to one lifecycle reducer. After every event, every agent the UI shows
// (its trees, /tasks, the active count of the status line) is exactly the
// reducer's record: the views hold no status of their own.
func TestPropertyTheTUIAgreesWithTheReducerAtEveryStep(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		m := New(Config{Backend: &fakeBackend{}, Now: func() time.Time { return t0 }})
		var ref lifecycle.State
		n := rapid.IntRange(1, 5).Draw(rt, "agents")
		var queues [][]event.Event
		for i := range n {
			queues = append(queues, withToolStarts(agentEvents(rt, i)))
		}
		step := 0
		for {
			var live []int
			for i, q := range queues {
				if len(q) > 0 {
					live = append(live, i)
				}
			}
			if len(live) == 0 {
				break
			}
			var e event.Event
			switch rapid.IntRange(0, 14).Draw(rt, "kind") {
			case 0:
				e = ev(event.Interrupt, at(float64(step)), event.LeadID, "", event.InterruptData{})
			case 1:
				e = leadText(at(float64(step)), "next message") // later task calls open a new tree
			default:
				i := rapid.SampledFrom(live).Draw(rt, "agent")
				e, queues[i] = queues[i][0], queues[i][1:]
			}
			e.Time = at(float64(step))
			step++
			feedEvents(m, e)
			ref.Apply(e)
			checkAgreement(rt, m, &ref, step, e)
		}
	})
}

// agentEvents is agent i's life: a named task call, its session, progress
// with an approval asked and answered, then an end.
func agentEvents(rt *rapid.T, i int) []event.Event {
	id, call := fmt.Sprintf("explore-%d", i+1), fmt.Sprintf("toolu_%d", i)
	bg := rapid.Bool().Draw(rt, "bg")
	mode := ""
	if bg {
		mode = "background"
	}
	in, _ := json.Marshal(map[string]string{"description": "look " + id, "prompt": "p", "subagent_type": "explore", "mode": mode})
	evs := []event.Event{
		ev(event.ToolStart, t0, event.LeadID, call, event.ToolStartData{Name: "task", Input: in, SubagentID: id, SubagentSessionID: "s/" + id,
			Queued: !bg && rapid.Bool().Draw(rt, "queued")}),
		ev(event.SubagentStart, t0, id, call, event.SubagentStartData{AgentType: "explore", Background: bg}),
	}
	if bg {
		evs = append(evs, ev(event.ToolComplete, t0, event.LeadID, call, event.ToolCompleteData{Name: "task", Success: true, Result: "started"}))
	}
	for u := range rapid.IntRange(0, 3).Draw(rt, "uses") {
		evs = append(evs, ev(event.SubagentUpdate, t0, id, call, event.SubagentUpdateData{CurrentTool: "grep x", ToolUses: u + 1}))
		if rapid.Bool().Draw(rt, "asks") {
			req := fmt.Sprintf("perm-%d-%d", i, u)
			evs = append(evs,
				ev(event.PermissionRequested, t0, id, "t", event.PermissionRequestedData{RequestID: req, Tool: "bash", Subject: "make"}),
				ev(event.SubagentUpdate, t0, id, call, event.SubagentUpdateData{CurrentTool: "bash make", ToolUses: u + 1}),
				ev(event.PermissionResolved, t0, id, "t", event.PermissionResolvedData{RequestID: req, Allowed: true}))
		}
	}
	ok := rapid.Bool().Draw(rt, "ok")
	evs = append(evs, ev(event.SubagentComplete, t0, id, call, event.SubagentCompleteData{Success: ok, Error: map[bool]string{false: "boom"}[ok], Result: "r"}))
	if !bg {
		evs = append(evs, ev(event.ToolComplete, t0, event.LeadID, call, event.ToolCompleteData{Name: "task", Success: ok, Result: "r", Error: map[bool]string{false: "boom"}[ok]}))
	}
	return evs
}

func checkAgreement(rt *rapid.T, m *Model, ref *lifecycle.State, step int, e event.Event) {
	shown := map[string]lifecycle.Record{}
	for _, tr := range m.trees {
		for _, r := range tr.recs.Records() {
			if _, dup := shown[r.ID]; dup {
				rt.Fatalf("step %d: %s is shown in two trees", step, r.ID)
			}
			shown[r.ID] = r
		}
	}
	if len(shown) != ref.Len() {
		rt.Fatalf("step %d (%s): the UI shows %d agents, the reducer has %d", step, e.Type, len(shown), ref.Len())
	}
	for _, want := range ref.Records() {
		got, ok := shown[want.ID]
		if !ok || got != want {
			rt.Fatalf("step %d (%s): the UI shows %s as\n%+v\nthe reducer has\n%+v", step, e.Type, want.ID, got, want)
		}
	}
	if m.activeAgents() != ref.Active() {
		rt.Fatalf("step %d: the status line counts %d active agents, the reducer %d", step, m.activeAgents(), ref.Active())
	}
	for _, row := range m.backgroundTasks() {
		if want, _ := ref.Get(row.rec.ID); row.rec != want {
			rt.Fatalf("step %d: /tasks shows %s as %s, the reducer as %s", step, row.rec.ID, row.rec.Status, want.Status)
		}
	}
}
