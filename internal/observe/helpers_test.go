package observe

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

const sid = "atomic-test"

func ev(typ event.Type, sec float64, agent, parent, call string, data any) event.Event {
	return event.Event{Type: typ, Time: at(sec), SessionID: sid, AgentID: agent, ParentAgentID: parent, ToolCallID: call, Data: data}
}

func leadStart(sec float64) event.Event {
	return ev(event.SessionStart, sec, "lead", "", "", event.SessionStartData{Model: "m1", Provider: "anthropic", Name: "lead"})
}

// spawn is the task call of parent that starts agent id of type typ on
// backend (the eager tool.start, then subagent.start).
func spawn(sec float64, parent, id, call, typ, backend string, background bool) []event.Event {
	mode := "sync"
	if background {
		mode = "background"
	}
	in, _ := json.Marshal(map[string]string{"description": "d " + id, "prompt": "p", "subagent_type": typ, "mode": mode})
	return []event.Event{
		ev(event.ToolStart, sec, parent, "", call, event.ToolStartData{Name: "task", Input: in, SubagentID: id}),
		ev(event.SubagentStart, sec, id, parent, call, event.SubagentStartData{AgentType: typ, Backend: backend, Background: background}),
	}
}

// work is agent id's tools tool calls and its usage u so far, just before
// sec: what the reducer counts.
func work(sec float64, parent, id string, tools int, u event.Usage) []event.Event {
	var out []event.Event
	for k := range tools {
		out = append(out, ev(event.ToolStart, sec-0.5, id, parent, fmt.Sprintf("%s/t%d", id, k), event.ToolStartData{Name: "read"}))
	}
	if u != (event.Usage{}) {
		out = append(out, ev(event.UsageUpdate, sec-0.5, id, parent, "", event.UsageUpdateData{Usage: u}))
	}
	return out
}

// finish is agent id's work (tools tool calls, usage u), then its end.
func finish(sec float64, parent, id, call string, ok bool, tools int, u event.Usage) []event.Event {
	d := event.SubagentCompleteData{Success: ok, Result: "r"}
	if !ok {
		d.Error = "boom"
	}
	return append(work(sec, parent, id, tools, u),
		ev(event.SubagentComplete, sec, id, parent, call, d),
		ev(event.ToolComplete, sec, parent, "", call, event.ToolCompleteData{Name: "task", Success: ok, Result: "r"}))
}

func leadComplete(sec float64, isErr bool) event.Event {
	d := event.CompleteData{NumTurns: 1}
	if isErr {
		d.IsError, d.Error = true, "lead failed"
	}
	return ev(event.Complete, sec, "lead", "", "", d)
}

// recorder is a SpanSink that keeps what it is given.
type recorder struct {
	mu      sync.Mutex
	started []Span
	ended   []Span
}

func (r *recorder) Started(s Span) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, s)
	return nil
}

func (r *recorder) Ended(s Span) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = append(r.ended, s)
	return nil
}

func flat(groups ...any) []event.Event {
	var out []event.Event
	for _, g := range groups {
		switch v := g.(type) {
		case event.Event:
			out = append(out, v)
		case []event.Event:
			out = append(out, v...)
		}
	}
	return out
}
