package lifecycle

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"pgregory.net/rapid"
)

// drawUsage draws a usage with small counts.
func drawUsage(t *rapid.T, label string) event.Usage {
	n := func(what string) int64 { return int64(rapid.IntRange(0, 50).Draw(t, label+what)) }
	return event.Usage{InputTokens: n("In"), OutputTokens: n("Out"), CacheReadTokens: n("Read"),
		CacheCreationTokens: n("Write"), CostUSD: float64(n("Cost")) / 100}
}

// lessThan reports whether some count of u is below v's.
func lessThan(u, v event.Usage) bool {
	return u.InputTokens < v.InputTokens || u.OutputTokens < v.OutputTokens || u.CacheReadTokens < v.CacheReadTokens ||
		u.CacheCreationTokens < v.CacheCreationTokens || u.CostUSD < v.CostUSD-1e-9
}

// TestCountsOverRandomEventOrders checks, after every event of random
// interleavings of sub-agents' lifecycles with tool calls (repeated call
// ids among them), running totals (that may go down), deltas, and the
// lead's turns and completes:
//   - each agent's tool uses are the number of its tool.start events, one
//     per tool call id, and its record (the lead's too) says the same;
//   - no usage.update makes an agent's usage or the run's total fall, a
//     running total raises the agent's usage to at least what it says, a
//     delta adds exactly, and the total is the agents' usages added up;
//   - the lead's record is terminal exactly while its last event of its
//     own (interrupt and reset aside) was complete.
func TestCountsOverRandomEventOrders(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(t, "agents")
		plans := make([][]event.Event, n)
		for i := range plans {
			plans[i] = drawPlan(t, i).events
		}
		agents := []string{event.LeadID, "team-ann"}
		for i := range n {
			agents = append(agents, fmt.Sprintf("agent-%d", i))
		}

		var (
			s          State
			calls      = map[string]map[string]bool{} // agent → tool call ids seen
			uncalled   = map[string]int{}             // agent → tool.starts without a call id
			prevUsage  = map[string]event.Usage{}
			prevTotal  event.Usage
			leadSeen   bool
			leadEnded  bool // the lead's last own event was complete
			next       = make([]int, n)
			now        = t0
			steps      = rapid.IntRange(1, 120).Draw(t, "steps")
			leadEvents = []event.Type{event.MessageDelta, event.TurnEnd, event.Retry}
		)
		for step := 0; step < steps; step++ {
			now = now.Add(time.Duration(rapid.IntRange(0, 3000).Draw(t, "gapMs")) * time.Millisecond)
			var e event.Event
			switch k := rapid.IntRange(0, 9).Draw(t, "kind"); {
			case k <= 2: // a sub-agent's lifecycle moves on
				i := rapid.IntRange(0, n-1).Draw(t, "plan")
				if next[i] >= len(plans[i]) {
					continue
				}
				e = plans[i][next[i]]
				next[i]++
			case k <= 4: // some agent starts a tool call
				e = event.Event{Type: event.ToolStart, AgentID: rapid.SampledFrom(agents).Draw(t, "caller"),
					Data: event.ToolStartData{Name: "read"}}
				if rapid.IntRange(0, 5).Draw(t, "noCallID") > 0 {
					e.ToolCallID = fmt.Sprintf("c%d", rapid.IntRange(0, 12).Draw(t, "call"))
				}
			case k <= 6: // some agent reports usage
				e = event.Event{Type: event.UsageUpdate, AgentID: rapid.SampledFrom(agents).Draw(t, "user"),
					Data: event.UsageUpdateData{Usage: drawUsage(t, "usage"), Delta: rapid.Bool().Draw(t, "delta")}}
			case k == 7:
				e = event.Event{Type: rapid.SampledFrom(leadEvents).Draw(t, "leadEvent"), AgentID: event.LeadID}
			case k == 8:
				e = event.Event{Type: event.Complete, AgentID: event.LeadID,
					Data: event.CompleteData{IsError: rapid.Bool().Draw(t, "failed"), Error: "boom"}}
			default:
				e = rapid.SampledFrom([]event.Event{interruptAt(time.Time{}), resetAt(time.Time{})}).Draw(t, "stop")
			}
			e.Time = now
			before := prevUsage[e.AgentID]
			s.Apply(e)

			// What the event stream says.
			if e.Type == event.ToolStart && e.AgentID != "" {
				if e.ToolCallID == "" {
					uncalled[e.AgentID]++
				} else {
					if calls[e.AgentID] == nil {
						calls[e.AgentID] = map[string]bool{}
					}
					calls[e.AgentID][e.ToolCallID] = true
				}
			}
			if e.AgentID == event.LeadID {
				switch e.Type {
				case event.Interrupt, event.Reset:
				case event.Complete:
					leadSeen, leadEnded = true, true
				default:
					leadSeen, leadEnded = true, false
				}
			}

			for _, id := range agents {
				if want := len(calls[id]) + uncalled[id]; s.ToolUses(id) != want {
					t.Fatalf("step %d (%s): %s has %d tool uses, its tool.start events count %d", step, e.Type, id, s.ToolUses(id), want)
				}
			}
			for _, r := range s.Records() {
				if r.ToolUses != s.ToolUses(r.ID) || r.Usage != s.Usage(r.ID) {
					t.Fatalf("step %d: record %s says %d tool uses and %+v, the tally %d and %+v", step, r.ID, r.ToolUses, r.Usage, s.ToolUses(r.ID), s.Usage(r.ID))
				}
			}

			if e.Type == event.UsageUpdate {
				d := e.Data.(event.UsageUpdateData)
				got := s.Usage(e.AgentID)
				switch {
				case lessThan(got, before):
					t.Fatalf("step %d: %s's usage fell from %+v to %+v", step, e.AgentID, before, got)
				case !d.Delta && lessThan(got, d.Usage):
					t.Fatalf("step %d: %s reported running total %+v, its usage is %+v", step, e.AgentID, d.Usage, got)
				case d.Delta && got.Total() != before.Total()+d.Usage.Total():
					t.Fatalf("step %d: delta %+v on %+v made %+v", step, d.Usage, before, got)
				}
			}
			total := s.TotalUsage()
			if lessThan(total, prevTotal) {
				t.Fatalf("step %d (%s): the run's total fell from %+v to %+v", step, e.Type, prevTotal, total)
			}
			var sum event.Usage
			for _, id := range agents {
				sum = sum.Add(s.Usage(id))
				prevUsage[id] = s.Usage(id)
			}
			if sum.Total() != total.Total() || math.Abs(sum.CostUSD-total.CostUSD) > 1e-6 {
				t.Fatalf("step %d: the run's total %+v is not its agents' %+v", step, total, sum)
			}
			prevTotal = total

			lead, ok := s.Lead()
			if ok != leadSeen {
				t.Fatalf("step %d (%s): lead record present %v, lead seen %v", step, e.Type, ok, leadSeen)
			}
			if ok && lead.Status.Terminal() != leadEnded {
				t.Fatalf("step %d (%s): lead is %s, its last event ended it: %v", step, e.Type, lead.Status, leadEnded)
			}
			if ok && (lead.ToolUses != s.ToolUses(event.LeadID) || lead.Usage != s.Usage(event.LeadID)) {
				t.Fatalf("step %d: the lead's record says %d tool uses and %+v, the tally %d and %+v", step, lead.ToolUses, lead.Usage, s.ToolUses(event.LeadID), s.Usage(event.LeadID))
			}
			if got, _ := s.Get(event.LeadID); got != lead {
				t.Fatalf("step %d: Get(lead) = %+v, Lead() = %+v", step, got, lead)
			}
		}
	})
}
