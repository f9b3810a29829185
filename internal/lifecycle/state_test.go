package lifecycle

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/google/go-cmp/cmp"
)

// mixedState has one record in each status, created in the order
// done, bg, failed, pend, run, intr.
func mixedState() *State {
	return applyAll(
		taskStart("c-done", `{}`, at(0)),
		taskStart("c-bg", `{"mode":"background"}`, at(0)),
		taskStart("c-failed", `{}`, at(0)),
		subComplete("unknown", event.SubagentCompleteData{}, at(0)),
		taskStart("c-pend", `{}`, at(0)),
		taskStart("c-run", `{}`, at(0)),
		subStart("pend", "c-pend", event.SubagentStartData{AgentType: "explore"}, at(0)),
		subUpdate("pend", event.SubagentUpdateData{Waiting: WaitingSlot}, at(0)),
		taskComplete("c-done", event.ToolCompleteData{Success: true}, at(1)),
		taskComplete("c-failed", event.ToolCompleteData{Error: "boom"}, at(1)),
		subComplete("run", event.SubagentCompleteData{}, at(0)), // unknown agent id: ignored
		taskStart("c-intr", `{}`, at(0)),
		subComplete("intr", event.SubagentCompleteData{}, at(0)),
		subStart("intr", "c-intr", event.SubagentStartData{AgentType: "general-purpose"}, at(0)),
		subComplete("intr", event.SubagentCompleteData{Cancelled: true}, at(2)),
	)
}

func ids(rs []Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestRecordsKeepCreationOrderAndAreCopies(t *testing.T) {
	s := mixedState()
	recs := s.Records()
	if diff := cmp.Diff([]string{"c-done", "c-bg", "c-failed", "pend", "c-run", "intr"}, ids(recs)); diff != "" {
		t.Fatalf("creation order (-want +got):\n%s", diff)
	}
	recs[0].Status = Running
	if got, _ := s.Get("c-done"); got.Status != Completed {
		t.Errorf("mutating Records() changed the state: %v", got.Status)
	}
	if s.Len() != 6 {
		t.Errorf("Len = %d, want 6", s.Len())
	}
}

func TestGetFindsByAgentIDOrTaskCallID(t *testing.T) {
	s := mixedState()
	byAgent, ok1 := s.Get("pend")
	byCall, ok2 := s.Get("c-pend")
	if !ok1 || !ok2 || byAgent != byCall || byAgent.ID != "pend" {
		t.Errorf("Get(pend) = %+v %v, Get(c-pend) = %+v %v; want the same record", byAgent, ok1, byCall, ok2)
	}
	if _, ok := s.Get("nobody"); ok {
		t.Error("Get(nobody) found a record")
	}
}

func TestCountsAndActive(t *testing.T) {
	s := mixedState()
	want := Counts{Pending: 1, Running: 1, Background: 1, Completed: 1, Error: 1, Interrupted: 1}
	if diff := cmp.Diff(want, s.Counts()); diff != "" {
		t.Errorf("Counts (-want +got):\n%s", diff)
	}
	if s.Active() != 3 || s.Counts().Active() != 3 || s.Counts().Total() != 6 {
		t.Errorf("Active = %d, Counts.Active = %d, Total = %d; want 3, 3, 6", s.Active(), s.Counts().Active(), s.Counts().Total())
	}
	for _, st := range []Status{Pending, Running, Background, Completed, Error, Interrupted} {
		if s.Counts().Of(st) != 1 {
			t.Errorf("Counts().Of(%s) = %d, want 1", st, s.Counts().Of(st))
		}
	}
}

func TestSortedOrdersByStatusThenCreation(t *testing.T) {
	s := mixedState()
	s.Apply(taskStart("c-run2", `{}`, at(3)))
	s.Apply(taskStart("c-bg2", `{"mode":"async"}`, at(3)))
	want := []string{"c-run", "c-run2", "pend", "c-bg", "c-bg2", "c-done", "intr", "c-failed"}
	if diff := cmp.Diff(want, ids(s.Sorted())); diff != "" {
		t.Errorf("Sorted (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"c-done", "c-bg", "c-failed", "pend", "c-run", "intr", "c-run2", "c-bg2"}, ids(s.Records())); diff != "" {
		t.Errorf("Sorted reordered the state (-want +got):\n%s", diff)
	}
}

func TestResetForgetsEverything(t *testing.T) {
	s := mixedState()
	s.Reset()
	if s.Len() != 0 || s.Active() != 0 || s.Counts() != (Counts{}) || s.Header() != "" {
		t.Fatalf("after Reset: len %d active %d counts %+v header %q", s.Len(), s.Active(), s.Counts(), s.Header())
	}
	if _, ok := s.Get("pend"); ok {
		t.Error("Get(pend) found a record after Reset")
	}
	// Reused ids start afresh.
	s.Apply(taskStart("c-pend", `{"subagent_type":"explore"}`, at(5)))
	if r, ok := s.Get("c-pend"); !ok || r.Status != Running || r.StartedAt != at(5) {
		t.Errorf("after Reset, tool.start gave %+v %v", r, ok)
	}
}

func TestElapsedTicksWhileActiveAndFreezesWhenTerminal(t *testing.T) {
	s := applyAll(syncSetup...)
	r, _ := s.Get("explore-1")
	if got := s.Elapsed(r, at(12)); got != 12*time.Second {
		t.Errorf("active Elapsed = %v, want 12s", got)
	}
	if got := s.Elapsed(r, at(-1)); got != 0 {
		t.Errorf("Elapsed before start = %v, want 0", got)
	}
	s.Apply(taskComplete("call-1", event.ToolCompleteData{Success: true}, at(31)))
	r, _ = s.Get("explore-1")
	if got := s.Elapsed(r, at(500)); got != 31*time.Second {
		t.Errorf("terminal Elapsed = %v, want the final 31s", got)
	}
}

func TestSettled(t *testing.T) {
	finished := applyAll(seq(syncSetup, []event.Event{taskComplete("call-1", event.ToolCompleteData{Success: true}, at(3))})...)
	closed := applyAll(seq(syncSetup, []event.Event{
		taskComplete("call-1", event.ToolCompleteData{Success: true}, at(3)),
		subComplete("explore-1", event.SubagentCompleteData{Success: true}, at(3)),
	})...)
	interrupted := applyAll(seq(syncSetup, []event.Event{interruptAt(at(2))})...)
	interruptedClosed := applyAll(seq(syncSetup, []event.Event{interruptAt(at(2)),
		subComplete("explore-1", event.SubagentCompleteData{Cancelled: true}, at(3))})...)
	bgAcked := applyAll(seq(bgSetup, []event.Event{taskComplete("call-2", event.ToolCompleteData{Success: true, Result: "ack"}, at(1))})...)
	pending := applyAll(seq(syncSetup, []event.Event{subUpdate("explore-1", event.SubagentUpdateData{Waiting: WaitingSlot}, at(1))})...)
	mate := applyAll(seq(syncSetup, []event.Event{
		taskComplete("call-1", event.ToolCompleteData{Success: true}, at(3)),
		subComplete("explore-1", event.SubagentCompleteData{Success: true}, at(3)),
		{Type: event.TeammateStatus, AgentID: "team/ann", Data: event.TeammateStatusData{Name: "ann", Status: "idle"}},
	})...)
	tests := []struct {
		name string
		s    *State
		want bool
	}{
		{"no agents, no teammates", &State{}, true},
		{"nil state", nil, true},
		{"all agents finished and their sessions closed", closed, true},
		{"finished but its session has not reported its end", finished, false},
		{"interrupted while its session is still closing", interrupted, false},
		{"interrupted and its session closed", interruptedClosed, true},
		{"all finished but a teammate is idle (alive)", mate, false},
		{"background agent acknowledged but still working", bgAcked, false},
		{"sync agent running", applyAll(syncSetup...), false},
		{"agent pending", pending, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.Settled(); got != tt.want {
				t.Errorf("Settled = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStatusEventEncodesRecordInSnakeCase(t *testing.T) {
	s := applyAll(seq(bgSetup, toolStarts("general-purpose-1", 2, at(1)), []event.Event{subUpdate("general-purpose-1", event.SubagentUpdateData{CurrentTool: "bash", ToolUses: 2}, at(1))})...)
	r, _ := s.Get("general-purpose-1")
	cause := subUpdate("general-purpose-1", event.SubagentUpdateData{}, at(1))
	cause.SessionID = "sess"
	ev := StatusEvent(cause, r)
	if ev.Type != event.AgentStatus || ev.AgentID != "general-purpose-1" || ev.ParentAgentID != lead ||
		ev.ToolCallID != "call-2" || ev.SessionID != "sess" || !ev.Time.Equal(at(1)) {
		t.Errorf("StatusEvent envelope = %+v", ev)
	}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"type":"agent.status"`, `"data":{"status":"background","agent":{"id":"general-purpose-1"`,
		`"tool_call_id":"call-2"`, `"parent_id":"lead"`, `"current_tool":"bash"`, `"tool_uses":2`,
		`"started_at":"2026-03-01T12:00:00Z"`, `"background":true`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("encoded event lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "duration_ns") {
		t.Errorf("an active record's zero duration should be omitted:\n%s", b)
	}
	var back struct {
		Data StatusData `json:"data"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(StatusData{Status: Background, Agent: r}, back.Data); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestAnUpdateNamingNoToolKeepsTheLastToolSoTheRowNeverShowsInitializingAgain(t *testing.T) {
	s := applyAll(seq(syncSetup, []event.Event{
		subUpdate("explore-1", event.SubagentUpdateData{CurrentTool: "bash ls", ToolUses: 1}, at(1)),
		// The call ended (a CLI reports no tool between calls), then usage.
		subUpdate("explore-1", event.SubagentUpdateData{ToolUses: 1}, at(2)),
		subUpdate("explore-1", event.SubagentUpdateData{ToolUses: 1, Usage: event.Usage{InputTokens: 10}}, at(3)),
	})...)
	r, _ := s.Get("explore-1")
	if r.CurrentTool != "bash ls" || SubLine(r) != "bash ls" {
		t.Errorf("after a tool and two updates naming none: current tool %q, sub-line %q; want the last tool, bash ls", r.CurrentTool, SubLine(r))
	}
	s.Apply(subUpdate("explore-1", event.SubagentUpdateData{CurrentTool: "read a.go", ToolUses: 2}, at(4)))
	if r, _ = s.Get("explore-1"); SubLine(r) != "read a.go" {
		t.Errorf("a new tool: sub-line %q, want read a.go", SubLine(r))
	}
}

func TestOpenChildIsTrueUntilEveryAgentAParentStartedHasEnded(t *testing.T) {
	var s State
	s.Apply(subStart("a", "call-a", event.SubagentStartData{AgentType: "general-purpose"}, at(0)))
	child := subStart("a-1", "call-a1", event.SubagentStartData{AgentType: "explore"}, at(1))
	child.ParentAgentID = "a"
	s.Apply(child)
	if !s.OpenChild(lead) || !s.OpenChild("a") {
		t.Fatalf("lead open %v, a open %v: want both, each has a running child", s.OpenChild(lead), s.OpenChild("a"))
	}
	if s.OpenChild("a-1") || s.OpenChild("nobody") {
		t.Fatal("an agent that started nothing has an open child")
	}
	end := subComplete("a-1", event.SubagentCompleteData{Success: true}, at(2))
	end.ParentAgentID = "a"
	s.Apply(end)
	if s.OpenChild("a") {
		t.Fatal("a's only child completed, yet a still has an open child")
	}
	if !s.OpenChild(lead) {
		t.Fatal("the lead's child a still runs, yet the lead has no open child")
	}
	s.Apply(subComplete("a", event.SubagentCompleteData{Success: true}, at(3)))
	if s.OpenChild(lead) {
		t.Fatal("every child of the lead ended, yet it has an open child")
	}
}
