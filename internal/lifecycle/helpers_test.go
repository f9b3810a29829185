package lifecycle

import (
	"fmt"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// t0 is the base time of test event streams.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// at is t0 plus sec seconds.
func at(sec float64) time.Time {
	return t0.Add(time.Duration(sec * float64(time.Second)))
}

const lead = "lead"

func taskStart(call, input string, t time.Time) event.Event {
	return event.Event{
		Type: event.ToolStart, Time: t, AgentID: lead, ToolCallID: call,
		Data: event.ToolStartData{Name: "task", Input: []byte(input)},
	}
}

func subStart(agent, call string, d event.SubagentStartData, t time.Time) event.Event {
	return event.Event{
		Type: event.SubagentStart, Time: t, AgentID: agent, ParentAgentID: lead,
		ToolCallID: call, Data: d,
	}
}

func subUpdate(agent string, d event.SubagentUpdateData, t time.Time) event.Event {
	return event.Event{
		Type: event.SubagentUpdate, Time: t, AgentID: agent, ParentAgentID: lead, Data: d,
	}
}

func taskComplete(call string, d event.ToolCompleteData, t time.Time) event.Event {
	d.Name = "task"
	return event.Event{
		Type: event.ToolComplete, Time: t, AgentID: lead, ToolCallID: call, Data: d,
	}
}

func subComplete(agent string, d event.SubagentCompleteData, t time.Time) event.Event {
	return event.Event{
		Type: event.SubagentComplete, Time: t, AgentID: agent, ParentAgentID: lead, Data: d,
	}
}

// toolStarts is n tool calls agent starts at t (ids agent/1 … agent/n).
func toolStarts(agent string, n int, t time.Time) []event.Event {
	out := make([]event.Event, n)
	for i := range out {
		out[i] = event.Event{Type: event.ToolStart, Time: t, AgentID: agent, ToolCallID: fmt.Sprintf("%s/%d", agent, i+1),
			Data: event.ToolStartData{Name: "read"}}
	}
	return out
}

// usageOf is agent's usage.update reporting its running total u.
func usageOf(agent string, u event.Usage, t time.Time) event.Event {
	return event.Event{Type: event.UsageUpdate, Time: t, AgentID: agent, Data: event.UsageUpdateData{Usage: u}}
}

func interruptAt(t time.Time) event.Event {
	return event.Event{Type: event.Interrupt, Time: t, AgentID: lead, Data: event.InterruptData{}}
}

func resetAt(t time.Time) event.Event {
	return event.Event{Type: event.Reset, Time: t, AgentID: lead, Data: event.ResetData{Reason: "clear"}}
}

// applyAll feeds events to a new State.
func applyAll(events ...event.Event) *State {
	var s State
	for _, e := range events {
		s.Apply(e)
	}
	return &s
}
