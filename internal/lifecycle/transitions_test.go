package lifecycle

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/google/go-cmp/cmp"
)

const (
	syncInput = `{"description":"Find the auth handlers","prompt":"Look for auth","subagent_type":"explore"}`
	bgInput   = `{"description":"Run the slow test suite","prompt":"go test ./...","mode":"background"}`
)

// syncRunning is the record of syncInput after subagent.start of explore-1.
func syncRunning() Record {
	return Record{
		ID: "explore-1", ToolCallID: "call-1", ParentID: lead, Name: "Explore",
		Description: "Find the auth handlers", Prompt: "Look for auth",
		Model: "small", Status: Running, StartedAt: at(0), Session: SessionOpen,
	}
}

// bgRunning is the record of bgInput after subagent.start of general-purpose-1.
func bgRunning() Record {
	return Record{
		ID: "general-purpose-1", ToolCallID: "call-2", ParentID: lead, Name: "general-purpose",
		Description: "Run the slow test suite", Prompt: "go test ./...", Background: true,
		Status: Background, StartedAt: at(0), Session: SessionOpen,
	}
}

var (
	syncSetup = []event.Event{
		taskStart("call-1", syncInput, at(0)),
		subStart("explore-1", "call-1", event.SubagentStartData{AgentType: "explore", Model: "small"}, at(0.5)),
	}
	bgSetup = []event.Event{
		taskStart("call-2", bgInput, at(0)),
		subStart("general-purpose-1", "call-2", event.SubagentStartData{AgentType: "general-purpose", Background: true}, at(0.5)),
	}
)

// queued marks a task tool.start as waiting for a concurrency slot.
func queued(e event.Event) event.Event {
	d := e.Data.(event.ToolStartData)
	d.Queued = true
	e.Data = d
	return e
}

func with(r Record, f func(*Record)) Record {
	f(&r)
	return r
}

func seq(parts ...[]event.Event) []event.Event {
	var out []event.Event
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestTransitions walks every row of the SPEC §2 table (and the bugs of the
// background-lifecycle seeds): setup events, then one event whose effect on
// the record named key is checked in full.
func TestTransitions(t *testing.T) {
	upd := event.SubagentUpdateData{CurrentTool: `grep "func.*Auth" internal/`, ToolUses: 4, Usage: event.Usage{InputTokens: 100, OutputTokens: 20}}
	// progress is explore-1 at work: its four tool calls and its usage
	// (what the reducer counts), then the update naming its current tool.
	progress := seq(toolStarts("explore-1", 4, at(3)), []event.Event{usageOf("explore-1", upd.Usage, at(3)), subUpdate("explore-1", upd, at(3))})
	tests := []struct {
		name        string
		setup       []event.Event
		ev          event.Event
		key         string
		want        Record
		wantChanged bool
	}{
		{
			name: "task tool.start creates a running record eagerly, keyed by the call id",
			ev:   taskStart("call-1", syncInput, at(0)),
			key:  "call-1",
			want: Record{
				ID: "call-1", ToolCallID: "call-1", ParentID: lead, Name: "Explore",
				Description: "Find the auth handlers", Prompt: "Look for auth",
				Status: Running, StartedAt: at(0),
			},
			wantChanged: true,
		},
		{
			name: "task tool.start in mode background creates a background record",
			ev:   taskStart("call-2", bgInput, at(0)),
			key:  "call-2",
			want: Record{
				ID: "call-2", ToolCallID: "call-2", ParentID: lead, Name: "general-purpose",
				Description: "Run the slow test suite", Prompt: "go test ./...", Background: true,
				Status: Background, StartedAt: at(0),
			},
			wantChanged: true,
		},
		{
			name: "a queued task tool.start creates a pending record, never a running one",
			ev:   queued(taskStart("call-4", syncInput, at(0))),
			key:  "call-4",
			want: Record{
				ID: "call-4", ToolCallID: "call-4", ParentID: lead, Name: "Explore",
				Description: "Find the auth handlers", Prompt: "Look for auth",
				Status: Pending, Waiting: WaitingSlot, StartedAt: at(0),
			},
			wantChanged: true,
		},
		{
			name:  "a queued agent runs once its slot frees",
			setup: []event.Event{queued(taskStart("call-4", syncInput, at(0))), subStart("explore-4", "call-4", event.SubagentStartData{AgentType: "explore"}, at(0))},
			ev:    event.Event{Type: event.SubagentUpdate, Time: at(2), AgentID: "explore-4", ToolCallID: "call-4", Data: event.SubagentUpdateData{}},
			key:   "explore-4",
			want: Record{
				ID: "explore-4", ToolCallID: "call-4", ParentID: lead, Name: "Explore",
				Description: "Find the auth handlers", Prompt: "Look for auth",
				Status: Running, StartedAt: at(0), Session: SessionOpen,
			},
			wantChanged: true,
		},
		{
			name:        "task tool.start without subagent_type defaults to general-purpose",
			ev:          taskStart("call-3", `{"description":"d","prompt":"p","model":"big"}`, at(1)),
			key:         "call-3",
			want:        Record{ID: "call-3", ToolCallID: "call-3", ParentID: lead, Name: "general-purpose", Description: "d", Prompt: "p", Model: "big", Status: Running, StartedAt: at(1)},
			wantChanged: true,
		},
		{
			name:        "task tool.start with malformed input still shows the agent",
			ev:          taskStart("call-4", `{"description":`, at(1)),
			key:         "call-4",
			want:        Record{ID: "call-4", ToolCallID: "call-4", ParentID: lead, Name: "general-purpose", Status: Running, StartedAt: at(1)},
			wantChanged: true,
		},
		{
			name:        "subagent.start merges with the eager entry and keeps running",
			setup:       syncSetup[:1],
			ev:          syncSetup[1],
			key:         "explore-1",
			want:        syncRunning(),
			wantChanged: true,
		},
		{
			name:        "subagent.start merges a background agent, which stays background",
			setup:       bgSetup[:1],
			ev:          bgSetup[1],
			key:         "general-purpose-1",
			want:        bgRunning(),
			wantChanged: true,
		},
		{
			name: "subagent.start without an eager entry creates a running record",
			ev:   subStart("explore-9", "call-9", event.SubagentStartData{AgentType: "explore", Description: "desc"}, at(2)),
			key:  "explore-9",
			want: Record{
				ID: "explore-9", ToolCallID: "call-9", ParentID: lead, Name: "Explore",
				Description: "desc", Status: Running, StartedAt: at(2), Session: SessionOpen,
			},
			wantChanged: true,
		},
		{
			name: "subagent.start without an eager entry creates a background record",
			ev:   subStart("gp-9", "call-9", event.SubagentStartData{AgentType: "general-purpose", Background: true}, at(2)),
			key:  "gp-9",
			want: Record{
				ID: "gp-9", ToolCallID: "call-9", ParentID: lead, Name: "general-purpose",
				Background: true, Status: Background, StartedAt: at(2), Session: SessionOpen,
			},
			wantChanged: true,
		},
		{
			name:  "subagent.update sets the current tool; tool uses and usage are the agent's own tool.start and usage.update",
			setup: seq(syncSetup, toolStarts("explore-1", 4, at(3)), []event.Event{usageOf("explore-1", upd.Usage, at(3))}),
			ev:    subUpdate("explore-1", event.SubagentUpdateData{CurrentTool: upd.CurrentTool, ToolUses: 99, Usage: event.Usage{InputTokens: 1}}, at(3)),
			key:   "explore-1",
			want: with(syncRunning(), func(r *Record) {
				r.ToolUses, r.CurrentTool, r.Usage = 4, upd.CurrentTool, upd.Usage
			}),
			wantChanged: true,
		},
		{
			name:        "subagent.update waiting for a slot makes a sync agent pending",
			setup:       syncSetup,
			ev:          subUpdate("explore-1", event.SubagentUpdateData{Waiting: WaitingSlot}, at(1)),
			key:         "explore-1",
			want:        with(syncRunning(), func(r *Record) { r.Status, r.Waiting = Pending, WaitingSlot }),
			wantChanged: true,
		},
		{
			name:        "the next subagent.update without a wait makes a pending agent running",
			setup:       seq(syncSetup, []event.Event{subUpdate("explore-1", event.SubagentUpdateData{Waiting: WaitingSlot}, at(1))}),
			ev:          subUpdate("explore-1", event.SubagentUpdateData{}, at(2)),
			key:         "explore-1",
			want:        syncRunning(),
			wantChanged: true,
		},
		{
			name:        "a background agent waiting for a slot stays background",
			setup:       bgSetup,
			ev:          subUpdate("general-purpose-1", event.SubagentUpdateData{Waiting: WaitingSlot}, at(1)),
			key:         "general-purpose-1",
			want:        with(bgRunning(), func(r *Record) { r.Waiting = WaitingSlot }),
			wantChanged: true,
		},
		{
			name:  "permission.requested by an agent records the approval it waits for",
			setup: seq(syncSetup, toolStarts("explore-1", 1, at(1)), []event.Event{subUpdate("explore-1", event.SubagentUpdateData{CurrentTool: "bash", ToolUses: 1}, at(1))}),
			ev: event.Event{Type: event.PermissionRequested, Time: at(1), AgentID: "explore-1", ToolCallID: "toolu_x",
				Data: event.PermissionRequestedData{RequestID: "perm-1", Tool: "bash", Subject: "rm -rf build"}},
			key:         "explore-1",
			want:        with(syncRunning(), func(r *Record) { r.CurrentTool, r.ToolUses, r.Waiting = "bash", 1, `bash "rm -rf build"` }),
			wantChanged: true,
		},
		{
			name:  "sync tool.complete completes with the result and sets the duration",
			setup: seq(syncSetup, progress),
			ev:    taskComplete("call-1", event.ToolCompleteData{Success: true, Result: "found 3"}, at(31)),
			key:   "explore-1",
			want: with(syncRunning(), func(r *Record) {
				r.ToolUses, r.Usage = 4, upd.Usage
				r.Status, r.Result, r.Duration = Completed, "found 3", 31*time.Second
			}),
			wantChanged: true,
		},
		{
			name:  "sync tool.complete failing ends the agent as error",
			setup: syncSetup,
			ev:    taskComplete("call-1", event.ToolCompleteData{Success: false, Error: "provider unreachable"}, at(4)),
			key:   "explore-1",
			want: with(syncRunning(), func(r *Record) {
				r.Status, r.Error, r.Duration = Error, "provider unreachable", 4*time.Second
			}),
			wantChanged: true,
		},
		{
			name:  "sync tool.complete of a pending agent completes it",
			setup: seq(syncSetup, []event.Event{subUpdate("explore-1", event.SubagentUpdateData{Waiting: WaitingSlot}, at(1))}),
			ev:    taskComplete("call-1", event.ToolCompleteData{Success: true, Result: "ok"}, at(2)),
			key:   "explore-1",
			want: with(syncRunning(), func(r *Record) {
				r.Status, r.Result, r.Duration = Completed, "ok", 2*time.Second
			}),
			wantChanged: true,
		},
		{
			name:  "background tool.complete only attaches the ack: status, current tool and duration untouched",
			setup: seq(bgSetup, toolStarts("general-purpose-1", 2, at(1)), []event.Event{subUpdate("general-purpose-1", event.SubagentUpdateData{CurrentTool: "bash", ToolUses: 2}, at(1))}),
			ev:    taskComplete("call-2", event.ToolCompleteData{Success: true, Result: "started general-purpose-1"}, at(1.5)),
			key:   "general-purpose-1",
			want: with(bgRunning(), func(r *Record) {
				r.CurrentTool, r.ToolUses, r.Ack = "bash", 2, "started general-purpose-1"
			}),
			wantChanged: true,
		},
		{
			name:  "background tool.complete failing means the spawn failed: error",
			setup: bgSetup[:1],
			ev:    taskComplete("call-2", event.ToolCompleteData{Success: false, Error: `unknown agent type "x"`}, at(0.1)),
			key:   "call-2",
			want: Record{
				ID: "call-2", ToolCallID: "call-2", ParentID: lead, Name: "general-purpose",
				Description: "Run the slow test suite", Prompt: "go test ./...", Background: true,
				Status: Error, StartedAt: at(0), Error: `unknown agent type "x"`, Duration: 100 * time.Millisecond,
			},
			wantChanged: true,
		},
		{
			name:  "background subagent.complete is the real completion (its counts are not the reducer's)",
			setup: seq(bgSetup, []event.Event{taskComplete("call-2", event.ToolCompleteData{Success: true, Result: "ack"}, at(1))}),
			ev:    subComplete("general-purpose-1", event.SubagentCompleteData{Success: true, Result: "all green", ToolUses: 3, Usage: event.Usage{InputTokens: 9}}, at(62)),
			key:   "general-purpose-1",
			want: with(bgRunning(), func(r *Record) {
				r.Ack, r.Status, r.Result, r.Session = "ack", Completed, "all green", SessionClosed
				r.Duration = 62 * time.Second
			}),
			wantChanged: true,
		},
		{
			name:  "background subagent.complete failing is error",
			setup: bgSetup,
			ev:    subComplete("general-purpose-1", event.SubagentCompleteData{Error: "bash exited 1: 2 tests failed", ToolUses: 3}, at(62)),
			key:   "general-purpose-1",
			want: with(bgRunning(), func(r *Record) {
				r.Status, r.Error, r.Duration, r.Session = Error, "bash exited 1: 2 tests failed", 62*time.Second, SessionClosed
			}),
			wantChanged: true,
		},
		{
			name:  "sync subagent.complete completes before tool.complete arrives",
			setup: seq(syncSetup, progress),
			ev:    subComplete("explore-1", event.SubagentCompleteData{Success: true, Result: "summary", ToolUses: 9}, at(31)),
			key:   "explore-1",
			want: with(syncRunning(), func(r *Record) {
				r.Status, r.Result, r.ToolUses, r.Usage, r.Duration, r.Session = Completed, "summary", 4, upd.Usage, 31*time.Second, SessionClosed
			}),
			wantChanged: true,
		},
		{
			name:  "cancelled subagent.complete is interrupted",
			setup: bgSetup,
			ev:    subComplete("general-purpose-1", event.SubagentCompleteData{Cancelled: true, Error: "cancelled by cancel_task"}, at(5)),
			key:   "general-purpose-1",
			want: with(bgRunning(), func(r *Record) {
				r.Status, r.Error, r.Duration, r.Session = Interrupted, "cancelled by cancel_task", 5*time.Second, SessionClosed
			}),
			wantChanged: true,
		},
		{
			name:  "subagent.complete after tool.complete on a sync agent only closes its session",
			setup: seq(syncSetup, []event.Event{taskComplete("call-1", event.ToolCompleteData{Success: true, Result: "first"}, at(10))}),
			ev:    subComplete("explore-1", event.SubagentCompleteData{Success: false, Error: "late", ToolUses: 7}, at(12)),
			key:   "explore-1",
			want: with(syncRunning(), func(r *Record) {
				r.Status, r.Result, r.Duration, r.Session = Completed, "first", 10*time.Second, SessionClosed
			}),
			wantChanged: true,
		},
		{
			name:  "tool.complete after subagent.complete on a sync agent is a no-op",
			setup: seq(syncSetup, []event.Event{subComplete("explore-1", event.SubagentCompleteData{Success: true, Result: "real"}, at(10))}),
			ev:    taskComplete("call-1", event.ToolCompleteData{Success: false, Error: "late"}, at(12)),
			key:   "explore-1",
			want: with(syncRunning(), func(r *Record) {
				r.Status, r.Result, r.Duration, r.Session = Completed, "real", 10*time.Second, SessionClosed
			}),
		},
		{
			name:  "interrupt ends a running agent as interrupted",
			setup: seq(syncSetup, progress),
			ev:    interruptAt(at(8)),
			key:   "explore-1",
			want: with(syncRunning(), func(r *Record) {
				r.ToolUses, r.Usage = 4, upd.Usage
				r.Status, r.Duration = Interrupted, 8*time.Second
			}),
			wantChanged: true,
		},
		{
			name:        "reset ends a background agent as interrupted",
			setup:       bgSetup,
			ev:          resetAt(at(9)),
			key:         "general-purpose-1",
			want:        with(bgRunning(), func(r *Record) { r.Status, r.Duration = Interrupted, 9*time.Second }),
			wantChanged: true,
		},
		{
			name:        "an interrupted agent stays interrupted through a late subagent.complete, which closes its session",
			setup:       seq(syncSetup, []event.Event{interruptAt(at(8))}),
			ev:          subComplete("explore-1", event.SubagentCompleteData{Success: true, Result: "late"}, at(20)),
			key:         "explore-1",
			want:        with(syncRunning(), func(r *Record) { r.Status, r.Duration, r.Session = Interrupted, 8*time.Second, SessionClosed }),
			wantChanged: true,
		},
		{
			name:  "a completed agent ignores later updates",
			setup: seq(bgSetup, []event.Event{subComplete("general-purpose-1", event.SubagentCompleteData{Success: true, Result: "r"}, at(4))}),
			ev:    subUpdate("general-purpose-1", event.SubagentUpdateData{CurrentTool: "bash", ToolUses: 99}, at(5)),
			key:   "general-purpose-1",
			want: with(bgRunning(), func(r *Record) {
				r.Status, r.Result, r.Duration, r.Session = Completed, "r", 4*time.Second, SessionClosed
			}),
		},
		{
			name:  "a late background ack is attached to a finished agent without changing it otherwise",
			setup: seq(bgSetup, []event.Event{subComplete("general-purpose-1", event.SubagentCompleteData{Success: true, Result: "r"}, at(4))}),
			ev:    taskComplete("call-2", event.ToolCompleteData{Success: true, Result: "ack"}, at(5)),
			key:   "general-purpose-1",
			want: with(bgRunning(), func(r *Record) {
				r.Status, r.Result, r.Duration, r.Ack, r.Session = Completed, "r", 4*time.Second, "ack", SessionClosed
			}),
			wantChanged: true,
		},
		{
			name:  "a repeated task tool.start is not a new agent",
			setup: syncSetup,
			ev:    taskStart("call-1", bgInput, at(3)),
			key:   "explore-1",
			want:  syncRunning(),
		},
		{
			name:  "end of the lead's stream never force-completes an agent",
			setup: bgSetup,
			ev:    event.Event{Type: event.TurnEnd, Time: at(3), AgentID: lead, Data: event.TurnEndData{StopReason: "end_turn"}},
			key:   "general-purpose-1",
			want:  bgRunning(),
		},
		{
			name:  "a sub-agent's own tool.complete sharing the task call id is ignored",
			setup: syncSetup,
			ev: event.Event{Type: event.ToolComplete, Time: at(3), AgentID: "explore-1", ParentAgentID: lead, ToolCallID: "call-1",
				Data: event.ToolCompleteData{Name: "read", Success: true, Result: "file"}},
			key:  "explore-1",
			want: syncRunning(),
		},
		{
			name:  "a task tool.complete from another caller sharing the call id is ignored",
			setup: syncSetup,
			ev: event.Event{Type: event.ToolComplete, Time: at(3), AgentID: "explore-1", ToolCallID: "call-1",
				Data: event.ToolCompleteData{Name: "task", Success: true, Result: "nested"}},
			key:  "explore-1",
			want: syncRunning(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := applyAll(tt.setup...)
			changed := s.Apply(tt.ev)
			got, ok := s.Get(tt.key)
			if !ok {
				t.Fatalf("no record %q; records: %+v", tt.key, s.Records())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
			if tt.wantChanged {
				if len(changed) != 1 || changed[0] != got {
					t.Errorf("Apply returned %+v, want exactly the changed record", changed)
				}
			} else if changed != nil {
				t.Errorf("Apply returned %+v, want nil (no change)", changed)
			}
		})
	}
}

func TestTaskModeSelectsBackground(t *testing.T) {
	tests := []struct {
		input string
		want  Status
	}{
		{`{"prompt":"p"}`, Running},
		{`{"prompt":"p","mode":"sync"}`, Running},
		{`{"prompt":"p","mode":"background"}`, Background},
		{`{"prompt":"p","mode":"async"}`, Background},
		{`{"prompt":"p","mode":" Async "}`, Background},
		{`{"prompt":"p","run_in_background":true}`, Background},
		{`{"prompt":"p","mode":"later"}`, Running},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			r, changed := Step(Record{}, taskStart("c", tt.input, at(0)))
			if !changed || r.Status != tt.want || r.Background != (tt.want == Background) {
				t.Errorf("Step = %v, %v (background %v), want status %v", r.Status, changed, r.Background, tt.want)
			}
		})
	}
}

func TestInterruptEndsOnlyActiveAgentsInCreationOrder(t *testing.T) {
	s := applyAll(
		taskStart("c1", `{"subagent_type":"explore"}`, at(0)),
		taskStart("c2", `{"mode":"background"}`, at(1)),
		taskStart("c3", `{}`, at(2)),
		taskStart("c4", `{}`, at(3)),
		subStart("a4", "c4", event.SubagentStartData{AgentType: "general-purpose"}, at(3)),
		subUpdate("a4", event.SubagentUpdateData{Waiting: WaitingSlot}, at(3)),
		taskComplete("c3", event.ToolCompleteData{Success: true, Result: "done"}, at(4)),
	)
	done, _ := s.Get("c3")
	changed := s.Apply(interruptAt(at(10)))
	var ids []string
	for _, r := range changed {
		ids = append(ids, r.ID)
		if r.Status != Interrupted || r.Duration <= 0 {
			t.Errorf("%s: status %v duration %v, want interrupted with a duration", r.ID, r.Status, r.Duration)
		}
	}
	if diff := cmp.Diff([]string{"c1", "c2", "a4"}, ids); diff != "" {
		t.Errorf("changed ids (-want +got):\n%s", diff)
	}
	if got, _ := s.Get("c3"); got != done {
		t.Errorf("completed record changed by interrupt: %+v", got)
	}
	if again := s.Apply(interruptAt(at(11))); again != nil {
		t.Errorf("second interrupt changed %+v", again)
	}
}

func TestIgnoresEventsThatDoNotConcernSubagents(t *testing.T) {
	s := applyAll(syncSetup...)
	before := s.Records()
	for _, e := range []event.Event{
		{Type: event.SessionStart, Time: at(1), AgentID: lead, Data: event.SessionStartData{Name: "lead"}},
		{Type: event.MessageDelta, Time: at(1), AgentID: "explore-1", Data: event.MessageDeltaData{Text: "hi"}},
		{Type: event.ToolComplete, Time: at(1), AgentID: "explore-1", ToolCallID: "x1", Data: event.ToolCompleteData{Name: "read", Success: true}},
		{Type: event.ToolStart, Time: at(1), AgentID: lead, Data: event.ToolStartData{Name: "task"}}, // no call id
		{Type: event.SubagentUpdate, Time: at(1), AgentID: "unknown-1", Data: event.SubagentUpdateData{ToolUses: 3}},
		{Type: event.SubagentComplete, Time: at(1), AgentID: "unknown-1", Data: event.SubagentCompleteData{Success: true}},
		{Type: event.UsageUpdate, Time: at(1), AgentID: lead, Data: event.UsageUpdateData{}},
		{Type: event.Complete, Time: at(1), AgentID: lead, Data: event.CompleteData{}},
		{Type: event.AgentStatus, Time: at(1), AgentID: "explore-1", Data: StatusData{Status: Completed}},
		{Type: event.Error, Time: at(1), AgentID: "explore-1", Data: event.ErrorData{Message: "boom"}},
		{Type: event.SubagentUpdate, Time: at(1), AgentID: "explore-1", Data: "not a payload"},
	} {
		if changed := s.Apply(e); changed != nil {
			t.Errorf("%s changed %+v", e.Type, changed)
		}
	}
	if diff := cmp.Diff(before, s.Records()); diff != "" {
		t.Errorf("records changed (-want +got):\n%s", diff)
	}
}

// TestAcceptsPointerAndJSONPayloads: events built with payload pointers, and
// events read back from stream-json (payload left as raw JSON), reduce alike.
func TestAcceptsPointerAndJSONPayloads(t *testing.T) {
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	s := applyAll(
		event.Event{Type: event.ToolStart, Time: at(0), AgentID: lead, ToolCallID: "c",
			Data: raw(event.ToolStartData{Name: "task", Input: json.RawMessage(bgInput)})},
		event.Event{Type: event.SubagentStart, Time: at(1), AgentID: "a", ToolCallID: "c",
			Data: &event.SubagentStartData{AgentType: "explore", Background: true}},
		event.Event{Type: event.SubagentUpdate, Time: at(2), AgentID: "a",
			Data: raw(event.SubagentUpdateData{ToolUses: 2, CurrentTool: "grep"})},
		event.Event{Type: event.ToolStart, Time: at(2), AgentID: "a", ToolCallID: "a1",
			Data: raw(event.ToolStartData{Name: "grep"})},
		event.Event{Type: event.UsageUpdate, Time: at(2), AgentID: "a",
			Data: raw(event.UsageUpdateData{Usage: event.Usage{InputTokens: 7}})},
		event.Event{Type: event.ToolComplete, Time: at(2), AgentID: lead, ToolCallID: "c",
			Data: &event.ToolCompleteData{Name: "task", Success: true, Result: "ack"}},
		event.Event{Type: event.SubagentComplete, Time: at(5), AgentID: "a",
			Data: raw(event.SubagentCompleteData{Success: true, Result: "res", ToolUses: 2})},
	)
	got, _ := s.Get("a")
	want := Record{
		ID: "a", ToolCallID: "c", ParentID: lead, Name: "Explore", Description: "Run the slow test suite",
		Prompt: "go test ./...", Background: true, Status: Completed, StartedAt: at(0),
		Duration: 5 * time.Second, ToolUses: 1, Usage: event.Usage{InputTokens: 7}, Result: "res", Ack: "ack", Session: SessionClosed,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
}

func TestStepLeavesZeroRecordZeroExceptOnCreation(t *testing.T) {
	for _, e := range []event.Event{
		subUpdate("a", event.SubagentUpdateData{ToolUses: 1}, at(1)),
		taskComplete("c", event.ToolCompleteData{Success: true}, at(1)),
		subComplete("a", event.SubagentCompleteData{Success: true}, at(1)),
		interruptAt(at(1)),
		{Type: event.ToolStart, Time: at(1), ToolCallID: "c", Data: event.ToolStartData{Name: "bash"}},
	} {
		if r, changed := Step(Record{}, e); changed || r != (Record{}) {
			t.Errorf("Step(zero, %s) = %+v, %v; want zero, false", e.Type, r, changed)
		}
	}
}

func TestARemoteAgentsRecordKeepsItsWorkerAndTheLatestNote(t *testing.T) {
	st := applyAll(
		taskStart("c1", `{"description":"d","prompt":"p"}`, at(0)),
		subStart("gp-1", "c1", event.SubagentStartData{AgentType: "general-purpose", Worker: "worker-a"}, at(1)),
		subUpdate("gp-1", event.SubagentUpdateData{Worker: "worker-a", Note: "waiting for worker-a: no word for 1s"}, at(2)),
		subUpdate("gp-1", event.SubagentUpdateData{Worker: "worker-b", Note: "restarted on worker-b", ToolUses: 1}, at(3)),
	)
	r, ok := st.Get("gp-1")
	if !ok {
		t.Fatal("no record")
	}
	if r.Worker != "worker-b" || r.Note != "restarted on worker-b" || r.Status != Running {
		t.Fatalf("record worker %q note %q status %s, want worker-b, restarted on worker-b, running", r.Worker, r.Note, r.Status)
	}
	st.Apply(subUpdate("gp-1", event.SubagentUpdateData{Worker: "worker-b", ToolUses: 2}, at(4)))
	if r, _ := st.Get("gp-1"); r.Note != "" || r.Worker != "worker-b" {
		t.Fatalf("after an update without a note: note %q worker %q, want none and worker-b", r.Note, r.Worker)
	}
}

func TestAnInterruptOfTheLeadsTurnAloneKeepsBackgroundAgentsAndTheirSubtreesRunning(t *testing.T) {
	// bg-1 is a background agent with a sync child (nested); sync-1 is the
	// lead's sync agent.
	child := subStart("bg-1/explore-1", "c3", event.SubagentStartData{AgentType: "explore"}, at(2))
	child.ParentAgentID = "bg-1"
	childCall := event.Event{Type: event.ToolStart, Time: at(2), AgentID: "bg-1", ParentAgentID: lead, ToolCallID: "c3",
		Data: event.ToolStartData{Name: "task", Input: []byte(`{"subagent_type":"explore"}`)}}
	s := applyAll(
		taskStart("c1", `{"mode":"background"}`, at(0)),
		subStart("bg-1", "c1", event.SubagentStartData{AgentType: "general-purpose", Background: true}, at(0)),
		taskStart("c2", `{}`, at(1)),
		subStart("sync-1", "c2", event.SubagentStartData{AgentType: "general-purpose"}, at(1)),
		childCall, child,
	)
	changed := s.Apply(event.Event{Type: event.Interrupt, Time: at(5), AgentID: lead,
		Data: event.InterruptData{Reason: "the user pressed Esc", KeepBackground: true}})
	var ids []string
	for _, r := range changed {
		ids = append(ids, r.ID)
	}
	if diff := cmp.Diff([]string{"sync-1"}, ids); diff != "" {
		t.Errorf("interrupted (-want +got):\n%s", diff)
	}
	for _, id := range []string{"bg-1", "bg-1/explore-1"} {
		if r, _ := s.Get(id); !r.Status.Active() {
			t.Errorf("%s is %s after an interrupt of the lead's turn, want it still at work", id, r.Status)
		}
	}
	// A full interrupt (the second Esc) ends them.
	if n := len(s.Apply(interruptAt(at(6)))); n != 2 {
		t.Errorf("a full interrupt ended %d agents, want the background one and its child", n)
	}
}
