package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-agent/atomic/internal/event"
)

// namedTaskStart is a task call whose tool.start already names its agent,
// as the agent loop announces it.
func namedTaskStart(call, id, typ, desc, mode string) event.Event {
	e := taskStart(at(0), call, typ, desc, mode)
	d := e.Data.(event.ToolStartData)
	d.SubagentID, d.SubagentSessionID = id, "s/"+id
	e.Data = d
	return e
}

func TestTasksCancelsAnAgentByItsOwnIDBeforeItsSessionStarts(t *testing.T) {
	m, b, _ := newTestModel(t, 100, 24)
	feedEvents(m, namedTaskStart("toolu_9", "explore-1", "explore", "Slow survey", "background"))
	userAsk(m, "/tasks")
	f := ansi.Strip(strings.Join(m.tasks.view(m), "\n"))
	if !strings.Contains(f, "explore-1 · Slow survey · background") || strings.Contains(f, "toolu_9") {
		t.Fatalf("/tasks does not list the agent by its id:\n%s", f)
	}
	press(m, "x")
	if len(b.cancelled) != 1 || b.cancelled[0] != "explore-1" {
		t.Fatalf("cancelled %q, want explore-1 (the id the manager knows)", b.cancelled)
	}
}

func TestClearDropsTheCancelledTurnsLateEventsUntilTheReset(t *testing.T) {
	m, b, _ := newTestModel(t, 100, 24)
	userAsk(m, "first question")
	feedEvents(m, ev(event.MessageDelta, at(1), event.LeadID, "", event.MessageDeltaData{Text: "Old answer, partly"}))
	userAsk(m, "/clear")
	if len(b.resets) != 1 {
		t.Fatalf("resets %q, want one", b.resets)
	}
	// The cancelled turn's last words arrive after /clear, before the reset.
	feedEvents(m,
		ev(event.MessageComplete, at(2), event.LeadID, "", event.MessageCompleteData{Text: "Old answer, partly", StopReason: "interrupted"}),
		ev(event.TurnEnd, at(2), event.LeadID, "", event.TurnEndData{StopReason: "interrupted"}),
		ev(event.Reset, at(2), event.LeadID, "", event.ResetData{Reason: "/clear"}),
	)
	userAsk(m, "second question")
	feedEvents(m, leadText(at(3), "New answer."))
	f := frame(m)
	if strings.Contains(f, "Old answer") {
		t.Errorf("an old reply leaked into the cleared chat:\n%s", f)
	}
	if !strings.Contains(f, "New answer.") {
		t.Errorf("the new conversation's answer is missing:\n%s", f)
	}
}

func TestExpandedTreeListsEachFinishedAgentsToolCalls(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 40)
	feedEvents(m,
		namedTaskStart("c1", "explore-1", "explore", "Look around", ""),
		subStart(at(0), "explore-1", "c1", "explore", "Look around", false),
		ev(event.ToolStart, at(1), "explore-1", "t1", event.ToolStartData{Name: "glob", Input: []byte(`{"pattern":"**/*.go"}`)}),
		ev(event.ToolStart, at(2), "explore-1", "t2", event.ToolStartData{Name: "read", Input: []byte(`{"file_path":"go.mod"}`)}),
		subDone(at(3), "explore-1", "c1", 2, "done"),
		taskReturn(at(3), "c1", "done", true),
	)
	if f := frame(m); strings.Contains(f, "read go.mod") {
		t.Fatalf("compact view lists tool calls:\n%s", f)
	}
	press(m, "ctrl+o")
	f := frame(m)
	for _, want := range []string{"› glob **/*.go", "› read go.mod"} {
		if !strings.Contains(f, want) {
			t.Errorf("expanded view lacks %q:\n%s", want, f)
		}
	}
}

func TestTeammateWaitingForApprovalSaysSo(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 24)
	feedEvents(m,
		ev(event.TeammateStatus, at(0), "team/ann", "", event.TeammateStatusData{Name: "ann", Role: "tester", Status: "working"}),
		ev(event.PermissionRequested, at(1), "team/ann", "x", event.PermissionRequestedData{RequestID: "p1", Tool: "bash", Subject: "make test"}),
	)
	if f := frame(m); !strings.Contains(f, `Waiting for approval: bash "make test"`) {
		t.Fatalf("teammate row does not say what it waits for:\n%s", f)
	}
	feedEvents(m, ev(event.PermissionResolved, at(2), "team/ann", "x", event.PermissionResolvedData{RequestID: "p1", Allowed: true}))
	if f := frame(m); strings.Contains(f, "Waiting for approval") {
		t.Fatalf("teammate still shown waiting after the answer:\n%s", f)
	}
}
