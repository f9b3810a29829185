package stats

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/observe"
)

// A background task's tool.complete is its spawn acknowledgement, and it
// may come before anything of the sub-agent itself (the task tool returns
// at once; the agent's goroutine emits its start after). Its span must
// still be the agent's: completed at its own end, with its tool uses and
// usage, one span per agent whether or not the task call named it.
func TestABackgroundAgentAcknowledgedBeforeItStartsIsOneSpanEndingAtItsOwnCompletion(t *testing.T) {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	u := event.Usage{InputTokens: 100, OutputTokens: 10}
	for _, tt := range []struct {
		name  string
		named string // the tool.start's SubagentID
	}{
		{"the task call names its agent", "explore-1"},
		{"the task call does not name its agent (an older store)", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := json.Marshal(map[string]string{"description": "d", "prompt": "p", "subagent_type": "explore", "mode": "background"})
			sub := func(typ event.Type, s int, call string, data any) event.Event {
				return event.Event{Type: typ, Time: at(s), SessionID: "s", AgentID: "explore-1", ParentAgentID: "lead", ToolCallID: call, Data: data}
			}
			evs := []event.Event{
				{Type: event.SessionStart, Time: at(0), SessionID: "s", AgentID: "lead", Data: event.SessionStartData{Model: "m", Provider: "anthropic"}},
				{Type: event.ToolStart, Time: at(1), SessionID: "s", AgentID: "lead", ToolCallID: "c1",
					Data: event.ToolStartData{Name: "task", Input: in, SubagentID: tt.named}},
				{Type: event.ToolComplete, Time: at(1), SessionID: "s", AgentID: "lead", ToolCallID: "c1",
					Data: event.ToolCompleteData{Name: "task", Success: true, Result: "spawned explore-1"}},
				sub(event.SubagentStart, 2, "c1", event.SubagentStartData{AgentType: "explore", Backend: "native", Background: true}),
				sub(event.ToolStart, 3, "t1", event.ToolStartData{Name: "read"}),
				sub(event.ToolStart, 3, "t1", event.ToolStartData{Name: "read"}), // reported twice: one use
				sub(event.ToolStart, 4, "t2", event.ToolStartData{Name: "grep"}),
				sub(event.UsageUpdate, 4, "", event.UsageUpdateData{Usage: u}),
				sub(event.SubagentComplete, 6, "c1", event.SubagentCompleteData{Success: true}),
				{Type: event.Complete, Time: at(7), SessionID: "s", AgentID: "lead", Data: event.CompleteData{NumTurns: 1}},
			}
			var got []observe.Span
			for _, s := range SessionSpans(evs) {
				if s.Kind == observe.KindSubagent {
					got = append(got, s)
				}
			}
			want := []observe.Span{{Kind: observe.KindSubagent, SessionID: "s", AgentID: "explore-1", ParentID: "lead", Type: "Explore",
				Backend: "native", Background: true, Start: at(1), End: at(6), Status: "completed", ToolUses: 2, Usage: u}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("sub-agent spans (-want +got):\n%s", diff)
			}
			rows := Aggregate(SessionSpans(evs))
			if len(rows) != 2 || rows[0].Type != "Explore" || rows[0].Spawns != 1 || rows[0].Errors != 0 || rows[0].P50 != 5*time.Second {
				t.Errorf("rows %+v: want one Explore spawn, not failed, lasting 5 s (and the lead)", rows)
			}
		})
	}
}
