package bus

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

func TestBusAddsOneAgentStatusEventPerStatusChangeAfterTheCause(t *testing.T) {
	b := New()
	var got []event.Event
	unsub := b.Subscribe(func(e event.Event) { got = append(got, e) })
	at := time.Unix(100, 0)
	in, _ := json.Marshal(map[string]string{"description": "d", "prompt": "p", "mode": "background"})
	b.Emit(event.Event{Type: event.ToolStart, Time: at, AgentID: "lead", ToolCallID: "c1", Data: event.ToolStartData{Name: "task", Input: in}})
	b.Emit(event.Event{Type: event.SubagentStart, Time: at, AgentID: "general-purpose-1", ParentAgentID: "lead", ToolCallID: "c1", Data: event.SubagentStartData{AgentType: "general-purpose", Background: true}})
	b.Emit(event.Event{Type: event.SubagentUpdate, Time: at, AgentID: "general-purpose-1", ToolCallID: "c1", Data: event.SubagentUpdateData{ToolUses: 1, CurrentTool: "ls"}})
	b.Emit(event.Event{Type: event.ToolComplete, Time: at, AgentID: "lead", ToolCallID: "c1", Data: event.ToolCompleteData{Name: "task", Success: true, Result: "started"}})
	b.Emit(event.Event{Type: event.SubagentComplete, Time: at.Add(time.Second), AgentID: "general-purpose-1", ToolCallID: "c1", Data: event.SubagentCompleteData{Success: true, Result: "r"}})
	unsub()
	b.Emit(event.Event{Type: event.Interrupt, Time: at})

	var types []event.Type
	var statuses []lifecycle.Status
	for _, e := range got {
		types = append(types, e.Type)
		if e.Type == event.AgentStatus {
			statuses = append(statuses, e.Data.(lifecycle.StatusData).Status)
		}
	}
	want := []event.Type{event.ToolStart, event.AgentStatus, event.SubagentStart, event.SubagentUpdate, event.ToolComplete, event.SubagentComplete, event.AgentStatus}
	if len(types) != len(want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("events %v, want %v", types, want)
		}
	}
	if len(statuses) != 2 || statuses[0] != lifecycle.Background || statuses[1] != lifecycle.Completed {
		t.Fatalf("statuses %v", statuses)
	}
	if b.Unsettled() != 0 || b.Agents()[0].Result != "r" {
		t.Fatalf("state %+v", b.Agents())
	}
}

func TestBusDeliversUsageAndToolUsesAsTheReducerCountsThem(t *testing.T) {
	b := New()
	var got []event.Event
	unsub := b.Subscribe(func(e event.Event) { got = append(got, e) })
	at := time.Unix(100, 0)
	b.Emit(event.Event{Type: event.UsageUpdate, Time: at, AgentID: "lead",
		Data: event.UsageUpdateData{Usage: event.Usage{InputTokens: 100, OutputTokens: 10}, Delta: true}})
	b.Emit(event.Event{Type: event.UsageUpdate, Time: at, AgentID: "lead",
		Data: event.UsageUpdateData{Usage: event.Usage{InputTokens: 50, OutputTokens: 5}, Delta: true}})
	// An external CLI's running total, with its own idea of the run's total.
	b.Emit(event.Event{Type: event.UsageUpdate, Time: at, AgentID: "explore-1",
		Data: event.UsageUpdateData{Usage: event.Usage{InputTokens: 7}, Total: event.Usage{InputTokens: 7}}})
	b.Emit(event.Event{Type: event.ToolStart, Time: at, AgentID: "explore-1", ToolCallID: "t1", Data: event.ToolStartData{Name: "read"}})
	b.Emit(event.Event{Type: event.ToolStart, Time: at, AgentID: "explore-1", ToolCallID: "t1", Data: event.ToolStartData{Name: "read"}})
	b.Emit(event.Event{Type: event.SubagentUpdate, Time: at, AgentID: "explore-1", Data: event.SubagentUpdateData{ToolUses: 9, CurrentTool: "read"}})
	unsub()

	lead := event.Usage{InputTokens: 150, OutputTokens: 15}
	total := event.Usage{InputTokens: 157, OutputTokens: 15}
	want := []event.UsageUpdateData{
		{Usage: event.Usage{InputTokens: 100, OutputTokens: 10}, Total: event.Usage{InputTokens: 100, OutputTokens: 10}},
		{Usage: lead, Total: lead},
		{Usage: event.Usage{InputTokens: 7}, Total: total},
	}
	for i, w := range want {
		if d := got[i].Data.(event.UsageUpdateData); d != w {
			t.Errorf("usage.update %d delivered as %+v, want %+v", i, d, w)
		}
	}
	if d := got[len(got)-1].Data.(event.SubagentUpdateData); d.ToolUses != 1 || d.Usage != (event.Usage{InputTokens: 7}) || d.CurrentTool != "read" {
		t.Errorf("subagent.update delivered as %+v, want 1 tool use (one call id) and the agent's usage", d)
	}
	if b.TotalUsage() != total || b.Usage("lead") != lead || b.ToolUses("explore-1") != 1 {
		t.Errorf("bus counts: total %+v, lead %+v, explore-1 %d tool uses", b.TotalUsage(), b.Usage("lead"), b.ToolUses("explore-1"))
	}
	if r, ok := b.Lead(); !ok || r.Usage != lead || r.Status.Terminal() {
		t.Errorf("lead record %+v (present %v)", r, ok)
	}
}

func TestBusTellsEverySubscriberATeammateIsWaitingOnItsShellAndIdleWhenItEnds(t *testing.T) {
	b := New()
	var told []string
	unsub := b.Subscribe(func(e event.Event) {
		if d, ok := e.Data.(event.TeammateStatusData); ok && e.Type == event.TeammateStatus {
			told = append(told, d.Status)
		}
	})
	at := time.Unix(100, 0)
	mate := func(st lifecycle.TeammateStatus) {
		b.Emit(event.Event{Type: event.TeammateStatus, Time: at, AgentID: "team/ann", Data: event.TeammateStatusData{Name: "ann", Status: string(st)}})
	}
	mate(lifecycle.MateSpawning)
	mate(lifecycle.MateWorking)
	b.Emit(event.Event{Type: event.ShellStart, Time: at, AgentID: "shell-1", ParentAgentID: "team/ann", ToolCallID: "c1", Data: event.ShellStartData{Command: "sleep 1"}})
	mate(lifecycle.MateIdle)
	b.Emit(event.Event{Type: event.ShellEnd, Time: at.Add(time.Second), AgentID: "shell-1", Data: event.ShellEndData{}})
	unsub()
	want := []string{"spawning", "working", "waiting", "idle"}
	if len(told) != len(want) || told[2] != want[2] || told[3] != want[3] {
		t.Fatalf("teammate.status told %v, want %v", told, want)
	}
}
