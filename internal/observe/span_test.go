package observe

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
)

// track emits events into a real bus whose inline subscriber is a Tracker
// of the bus's reducer (each event handled before the next is emitted, as
// the events' order has it), and returns the spans it started and ended,
// then those Close ends at close.
func track(events []event.Event, close time.Time) (started, ended []Span) {
	b := bus.New()
	tr := NewTracker(b)
	sub := b.SubscribeWith(func(e event.Event) {
		if Relevant(e.Type) {
			s, en := tr.Apply(e)
			started, ended = append(started, s...), append(ended, en...)
		}
	}, bus.Options{Name: "observe", Inline: true})
	for _, e := range events {
		b.Emit(e)
	}
	sub.Close()
	return started, append(ended, tr.Close(close)...)
}

func TestTrackerEndsEveryAgentWithItsStatusDurationToolsAndUsage(t *testing.T) {
	u := event.Usage{InputTokens: 100, OutputTokens: 20, CostUSD: 0.5}
	lead := Span{Kind: KindLead, SessionID: sid, AgentID: "lead", Type: "lead", Backend: "native", Model: "m1"}
	tests := []struct {
		name   string
		events []event.Event
		close  float64
		want   []Span // in the order they end
	}{{
		name: "a sync sub-agent ends at its completion, the lead at the run's end",
		events: flat(leadStart(0), spawn(1, "lead", "explore-1", "c1", "explore", "native", false),
			finish(4, "lead", "explore-1", "c1", true, 3, u), leadComplete(5, false)),
		close: 6,
		want: []Span{
			{Kind: KindSubagent, SessionID: sid, AgentID: "explore-1", ParentID: "lead", Type: "Explore", Backend: "native",
				Start: at(1), End: at(4), Status: "completed", ToolUses: 3, Usage: u},
			with(lead, 0, 6, "completed", "", 1),
		},
	}, {
		name: "a failing sub-agent ends in error with its message",
		events: flat(leadStart(0), spawn(1, "lead", "general-1", "c1", "general", "native", false),
			finish(2, "lead", "general-1", "c1", false, 0, event.Usage{}), leadComplete(3, false)),
		close: 3,
		want: []Span{
			{Kind: KindSubagent, SessionID: sid, AgentID: "general-1", ParentID: "lead", Type: "general", Backend: "native",
				Start: at(1), End: at(2), Status: "error", Error: "boom"},
			with(lead, 0, 3, "completed", "", 1),
		},
	}, {
		name: "a background sub-agent ends at its own completion, not at the spawn acknowledgement",
		events: flat(leadStart(0), spawn(1, "lead", "bg-1", "c1", "explore", "native", true),
			ev(event.ToolComplete, 1.5, "lead", "", "c1", event.ToolCompleteData{Name: "task", Success: true, Result: "spawned"}),
			work(7, "lead", "bg-1", 2, u),
			ev(event.SubagentComplete, 7, "bg-1", "lead", "c1", event.SubagentCompleteData{Success: true}),
			leadComplete(8, false)),
		close: 8,
		want: []Span{
			{Kind: KindSubagent, SessionID: sid, AgentID: "bg-1", ParentID: "lead", Type: "Explore", Backend: "native", Background: true,
				Start: at(1), End: at(7), Status: "completed", ToolUses: 2, Usage: u},
			with(lead, 0, 8, "completed", "", 1),
		},
	}, {
		name: "a CLI's own sub-agent is a child of the CLI's agent, on the CLI's backend",
		events: flat(leadStart(0), spawn(1, "lead", "claude-1", "c1", "reviewer", "claude-code", false),
			spawn(2, "claude-1", "claude-1/explore-1", "c2", "Explore", "claude-code", false),
			finish(3, "claude-1", "claude-1/explore-1", "c2", true, 1, event.Usage{}),
			finish(4, "lead", "claude-1", "c1", true, 2, u), leadComplete(5, false)),
		close: 5,
		want: []Span{
			{Kind: KindSubagent, SessionID: sid, AgentID: "claude-1/explore-1", ParentID: "claude-1", Type: "Explore", Backend: "claude-code",
				Start: at(2), End: at(3), Status: "completed", ToolUses: 1},
			{Kind: KindSubagent, SessionID: sid, AgentID: "claude-1", ParentID: "lead", Type: "reviewer", Backend: "claude-code",
				Start: at(1), End: at(4), Status: "completed", ToolUses: 3, Usage: u}, // its task call and two more
			with(lead, 0, 5, "completed", "", 1),
		},
	}, {
		name: "a teammate ends at its terminal status with its own tool uses and usage, its type as the type and its role apart",
		events: flat(leadStart(0),
			ev(event.TeammateStatus, 1, "team/alice", "lead", "", event.TeammateStatusData{Name: "alice", Role: "tester", Type: "general-purpose", Status: "spawning"}),
			ev(event.TeammateStatus, 2, "team/alice", "lead", "", event.TeammateStatusData{Name: "alice", Role: "tester", Type: "general-purpose", Status: "working"}),
			ev(event.ToolStart, 2.5, "team/alice", "lead", "t1", event.ToolStartData{Name: "read"}),
			ev(event.UsageUpdate, 3, "team/alice", "lead", "", event.UsageUpdateData{Usage: u}),
			ev(event.TeammateStatus, 4, "team/alice", "lead", "", event.TeammateStatusData{Name: "alice", Role: "tester", Status: "shutdown"}),
			leadComplete(5, false)),
		close: 5,
		want: []Span{
			{Kind: KindTeammate, SessionID: sid, AgentID: "team/alice", ParentID: "lead", Type: "general-purpose", Role: "tester", Backend: "native",
				Start: at(1), End: at(4), Status: "shutdown", ToolUses: 1, Usage: u},
			with(lead, 0, 5, "completed", "", 0),
		},
	}, {
		name: "a tool call reported twice (one call id) is one tool use of the lead, a sub-agent and a teammate",
		events: flat(leadStart(0),
			ev(event.ToolStart, 0.5, "lead", "", "l1", event.ToolStartData{Name: "read"}),
			ev(event.ToolStart, 0.6, "lead", "", "l1", event.ToolStartData{Name: "read"}),
			spawn(1, "lead", "explore-1", "c1", "explore", "native", false),
			ev(event.ToolStart, 1.5, "explore-1", "lead", "explore-1/t0", event.ToolStartData{Name: "read"}),
			finish(2, "lead", "explore-1", "c1", true, 1, u), // explore-1/t0 again
			ev(event.TeammateStatus, 2, "team/alice", "lead", "", event.TeammateStatusData{Name: "alice", Status: "working"}),
			ev(event.ToolStart, 2.5, "team/alice", "lead", "a1", event.ToolStartData{Name: "bash"}),
			ev(event.ToolStart, 2.6, "team/alice", "lead", "a1", event.ToolStartData{Name: "bash"}),
			ev(event.TeammateStatus, 3, "team/alice", "lead", "", event.TeammateStatusData{Name: "alice", Status: "shutdown"}),
			leadComplete(4, false)),
		close: 4,
		want: []Span{
			{Kind: KindSubagent, SessionID: sid, AgentID: "explore-1", ParentID: "lead", Type: "Explore", Backend: "native",
				Start: at(1), End: at(2), Status: "completed", ToolUses: 1, Usage: u},
			{Kind: KindTeammate, SessionID: sid, AgentID: "team/alice", ParentID: "lead", Type: "alice", Backend: "native",
				Start: at(2), End: at(3), Status: "shutdown", ToolUses: 1},
			with(lead, 0, 4, "completed", "", 2), // l1 and the task call
		},
	}, {
		name:   "an agent still running when the run ends is interrupted, and so is a lead that never completed",
		events: flat(leadStart(0), spawn(1, "lead", "explore-1", "c1", "explore", "native", false)),
		close:  2,
		want: []Span{
			{Kind: KindSubagent, SessionID: sid, AgentID: "explore-1", ParentID: "lead", Type: "Explore", Backend: "native",
				Start: at(1), End: at(2), Status: "interrupted", Error: "the run ended first"},
			with(lead, 0, 2, "interrupted", "the run ended before the lead completed", 1),
		},
	}, {
		name:   "a lead the user interrupted ends interrupted, not in error",
		events: flat(leadStart(0), ev(event.Complete, 1, "lead", "", "", event.CompleteData{IsError: true, Error: "interrupted: the user pressed Esc", Interrupted: true})),
		close:  1,
		want:   []Span{with(lead, 0, 1, "interrupted", "interrupted: the user pressed Esc", 0)},
	}, {
		name: "a resumed session's new run is a lead span of its own, from its start, with that run's tool uses and usage",
		events: flat(leadStart(0), ev(event.ToolStart, 10, "lead", "", "l1", event.ToolStartData{Name: "read"}),
			ev(event.UsageUpdate, 20, "lead", "", "", event.UsageUpdateData{Usage: u}), leadComplete(30, false),
			// The process exited; the session was resumed 15 minutes later.
			leadStart(900), ev(event.ToolStart, 910, "lead", "", "l2", event.ToolStartData{Name: "read"}),
			ev(event.ToolStart, 911, "lead", "", "l3", event.ToolStartData{Name: "read"}),
			// The resumed run's reducer goes on from the stored totals.
			ev(event.UsageUpdate, 920, "lead", "", "", event.UsageUpdateData{Usage: u.Add(u)}), leadComplete(960, false)),
		close: 960,
		want: []Span{
			func() Span { s := with(lead, 0, 30, "completed", "", 1); s.Usage = u; return s }(),
			func() Span { s := with(lead, 900, 960, "completed", "", 2); s.Usage = u; return s }(),
		},
	}, {
		name: "a resumed run whose first run never completed ends that run's lead at its last event, interrupted",
		events: flat(leadStart(0), ev(event.ToolStart, 10, "lead", "", "l1", event.ToolStartData{Name: "read"}),
			leadStart(900), leadComplete(960, false)),
		close: 960,
		want: []Span{
			with(lead, 0, 10, "interrupted", "the run ended before the lead completed", 1),
			with(lead, 900, 960, "completed", "", 0),
		},
	}, {
		name:   "a lead whose complete is an error ends in error",
		events: flat(leadStart(0), leadComplete(1, true)),
		close:  1,
		want:   []Span{with(lead, 0, 1, "error", "lead failed", 0)},
	}, {
		name:   "an external CLI's lead is on that CLI's backend",
		events: flat(ev(event.SessionStart, 0, "lead", "", "", event.SessionStartData{Model: "gpt", Provider: "codex"}), leadComplete(1, false)),
		close:  1,
		want:   []Span{{Kind: KindLead, SessionID: sid, AgentID: "lead", Type: "lead", Backend: "codex", Model: "gpt", Start: at(0), End: at(1), Status: "completed"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			started, ended := track(tt.events, at(tt.close))
			if diff := cmp.Diff(tt.want, ended); diff != "" {
				t.Errorf("ended spans (-want +got):\n%s", diff)
			}
			if len(started) != len(tt.want) {
				t.Errorf("started %d spans, want one per agent (%d): %+v", len(started), len(tt.want), started)
			}
			for i, s := range started {
				if !s.End.IsZero() || s.Status != "" {
					t.Errorf("started span %d carries an end: %+v", i, s)
				}
			}
		})
	}
}

// with is the lead span s from start to end (seconds) with its outcome.
func with(s Span, start, end float64, status, msg string, tools int) Span {
	s.Start, s.End, s.Status, s.Error, s.ToolUses = at(start), at(end), status, msg, tools
	return s
}
