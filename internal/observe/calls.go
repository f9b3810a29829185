package observe

import (
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Kinds of calls, as GenAI's gen_ai.operation.name.
const (
	CallModel = "chat"
	CallTool  = "execute_tool"
)

// Call is one model request or tool call of an agent: a span under the
// agent's.
type Call struct {
	Kind    string // CallModel or CallTool
	AgentID string
	// Name is the model asked, or the tool called.
	Name string
	// ID is the tool call's id.
	ID string
	// Provider names the model's API (anthropic, openai).
	Provider   string
	Start, End time.Time
	// Usage is what the model request used.
	Usage      event.Usage
	StopReason string
	Failed     bool
	Error      string
}

// CallSink is a SpanSink that also takes each call as it ends.
type CallSink interface {
	Call(Call) error
}

// callRelevant reports the event types calls are read from, beyond those
// Relevant names.
func callRelevant(t event.Type) bool { return t == event.ToolComplete }

// callTracker pairs each tool call's start with its end, and reads model
// requests from the usage.update deltas of Atomic's own loop (an external
// CLI reports usage per agent, so its requests are not spans).
type callTracker struct {
	tools map[string]event.Event // open tool calls by agent and call id
}

func newCallTracker() *callTracker { return &callTracker{tools: map[string]event.Event{}} }

// apply returns the call e ends, if any.
func (c *callTracker) apply(e event.Event) (Call, bool) {
	key := e.AgentID + "\x00" + e.ToolCallID
	switch e.Type {
	case event.ToolStart:
		if e.ToolCallID != "" {
			c.tools[key] = e
		}
	case event.ToolComplete:
		start, ok := c.tools[key]
		if !ok {
			return Call{}, false
		}
		delete(c.tools, key)
		d, _ := event.Payload[event.ToolCompleteData](e.Data)
		call := Call{Kind: CallTool, AgentID: e.AgentID, ID: e.ToolCallID, Name: d.Name, Start: start.Time, End: e.Time}
		if call.Name == "" {
			sd, _ := event.Payload[event.ToolStartData](start.Data)
			call.Name = sd.Name
		}
		if !d.Success {
			call.Failed, call.Error = true, firstLine(d.Error)
		}
		return call, true
	case event.UsageUpdate:
		d, ok := event.Payload[event.UsageUpdateData](e.Data)
		if !ok || d.Call == nil {
			return Call{}, false
		}
		m := d.Call
		return Call{Kind: CallModel, AgentID: e.AgentID, Name: m.Model, Provider: m.Provider, Start: m.Start, End: e.Time,
			Usage: m.Usage, StopReason: string(m.StopReason)}, true
	}
	return Call{}, false
}

// firstLine is s's first line, at most 200 bytes: a span's status
// message, not the whole output.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
