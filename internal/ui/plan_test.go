package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/tools"
)

// todoCall is an agent's todo_write call: its tool.start, plan.update and
// tool.complete, as the agent loop emits them.
func todoCall(t time.Time, agent, call string, todos ...event.Todo) []event.Event {
	in, _ := json.Marshal(map[string]any{"todos": todos})
	return []event.Event{
		ev(event.ToolStart, t, agent, call, event.ToolStartData{Name: "todo_write", Input: in}),
		ev(event.PlanUpdate, t, agent, call, event.PlanUpdateData{Todos: todos}),
		ev(event.ToolComplete, t, agent, call, event.ToolCompleteData{Name: "todo_write", Success: true, Result: "Plan saved."}),
	}
}

func firstPlan() []event.Todo {
	return []event.Todo{
		{Content: "Read the parser", Status: "completed", ActiveForm: "Reading the parser"},
		{Content: "Write a failing test", Status: "in_progress", ActiveForm: "Writing a failing test"},
		{Content: "Fix the bug", Status: "pending", ActiveForm: "Fixing the bug"},
	}
}

func laterPlan() []event.Todo {
	return []event.Todo{
		{Content: "Read the parser", Status: "completed"},
		{Content: "Write a failing test", Status: "completed"},
		{Content: "Fix the bug", Status: "in_progress", ActiveForm: "Fixing the bug"},
		{Content: "Run the whole suite", Status: "pending"},
	}
}

func TestGoldenLeadPlanShowsPendingInProgressAndCompleted(t *testing.T) {
	m, _, _ := newTestModel(t, 90, 16)
	userAsk(m, "Fix the parser bug.")
	evs := []event.Event{leadText(at(0), "Here is my plan.")}
	evs = append(evs, todoCall(at(1), event.LeadID, "p1", firstPlan()...)...)
	feedEvents(m, evs...)
	golden(t, "plan_lead", frame(m))
}

func TestGoldenALaterTodoWriteShowsTheUpdatedListUnderItsOwnMessage(t *testing.T) {
	m, _, _ := newTestModel(t, 90, 24)
	userAsk(m, "Fix the parser bug.")
	evs := []event.Event{leadText(at(0), "Here is my plan.")}
	evs = append(evs, todoCall(at(1), event.LeadID, "p1", firstPlan()...)...)
	evs = append(evs, leadText(at(5), "The test fails as expected; fixing."))
	evs = append(evs, todoCall(at(6), event.LeadID, "p2", laterPlan()...)...)
	feedEvents(m, evs...)
	golden(t, "plan_lead_updated", frame(m))
}

func TestGoldenSubagentPlanStaysInItsTreeRow(t *testing.T) {
	m := New(Config{Backend: &fakeBackend{}, Now: (&clock{now: t0}).Now, Subject: ToolSubject(tools.NewSet(tools.NewTodoWrite()))})
	m.Update(tea.WindowSizeMsg{Width: 90, Height: 22})
	userAsk(m, "Fix the parser bug.")
	evs := []event.Event{
		leadText(at(0), "Delegating."),
		taskStart(at(0), "c1", "general-purpose", "Fix the parser", ""),
		subStart(at(0), "general-purpose-1", "c1", "general-purpose", "Fix the parser", false),
	}
	evs = append(evs, todoCall(at(1), "general-purpose-1", "g1", firstPlan()...)...)
	evs = append(evs, subUpdate(at(1), "general-purpose-1", "c1", "todo_write Writing a failing test · 1/3 done", 1))
	before := len(m.tr.entries)
	feedEvents(m, evs...)
	if got := len(m.tr.entries) - before; got != 2 {
		t.Errorf("the lead's transcript gained %d entries, want 2 (its message and the tree): a sub-agent's plan must not flood it", got)
	}
	golden(t, "plan_subagent_compact", frame(m))
	m.Update(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	golden(t, "plan_subagent_expanded", frame(m))
}

func TestAFailedTodoWriteShowsItsErrorNotAPlan(t *testing.T) {
	m, _, _ := newTestModel(t, 90, 12)
	in := json.RawMessage(`{"todos":[{"content":"A","status":"done"}]}`)
	feedEvents(m,
		ev(event.ToolStart, at(0), event.LeadID, "p1", event.ToolStartData{Name: "todo_write", Input: in}),
		ev(event.ToolComplete, at(0), event.LeadID, "p1", event.ToolCompleteData{Name: "todo_write", Error: `invalid input for tool todo_write: todos[0] ("A"): unknown status "done"`}),
	)
	got := frame(m)
	if !strings.Contains(got, `unknown status "done"`) || strings.Contains(got, "Plan ·") {
		t.Fatalf("frame:\n%s\nwant the error and no checklist", got)
	}
}

func TestAPlanWithoutACallOfTheLeadIsShownWhereItArrived(t *testing.T) {
	m, _, _ := newTestModel(t, 90, 12)
	feedEvents(m, leadText(at(0), "Planning."), ev(event.PlanUpdate, at(1), event.LeadID, "", event.PlanUpdateData{Todos: laterPlan()}))
	got := frame(m)
	for _, w := range []string{"● Plan · 2/4 done", "☑ Read the parser", "◐ Fixing the bug", "☐ Run the whole suite"} {
		if !strings.Contains(got, w) {
			t.Errorf("frame lacks %q:\n%s", w, got)
		}
	}
}

func TestAResumedChatShowsTheLastPlan(t *testing.T) {
	evs := []event.Event{leadText(at(0.5), "Here is my plan.")}
	evs = append(evs, todoCall(at(1), event.LeadID, "p1", firstPlan()...)...)
	evs = append(evs, todoCall(at(6), event.LeadID, "p2", laterPlan()...)...)
	evs = append(evs, ev(event.TurnEnd, at(7), event.LeadID, "", event.TurnEndData{StopReason: "end_turn"}),
		ev(event.Complete, at(7), event.LeadID, "", event.CompleteData{Result: "Here is my plan."}))
	live, _, c := newTestModel(t, 90, 24)
	userAsk(live, "Fix the parser bug.")
	feedEvents(live, evs...)
	// Events read back from the store carry undecoded payloads.
	stored := make([]event.Event, len(evs))
	for i, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var r event.Raw
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		stored[i] = r.Event()
	}
	resumed := New(Config{Backend: &fakeBackend{}, Now: c.Now, Past: &Past{Events: stored,
		Prompts: []PastPrompt{{Text: "Fix the parser bug.", Time: at(0)}}}})
	resumed.Update(tea.WindowSizeMsg{Width: 90, Height: 24})
	want := frame(live)
	if !strings.Contains(want, "◐ Fixing the bug") {
		t.Fatalf("the live frame lacks the last plan:\n%s", want)
	}
	if diff := cmp.Diff(want, frame(resumed)); diff != "" {
		t.Fatalf("resumed frame differs from the live one (-live +resumed):\n%s", diff)
	}
}

func TestPlanItemsAreColouredByStatus(t *testing.T) {
	th := DefaultTheme()
	lines := planLines(&renderCtx{Width: 90, Theme: th}, dot, laterPlan())
	want := []string{
		th.fg(th.Success).Strikethrough(true).Render("☑ Read the parser"),
		th.fg(th.Success).Strikethrough(true).Render("☑ Write a failing test"),
		th.accent().Bold(true).Render("◐ Fixing the bug"),
		"☐ Run the whole suite",
	}
	if len(lines) != 1+len(want) {
		t.Fatalf("%d lines, want a header and %d items: %q", len(lines), len(want), lines)
	}
	if !strings.Contains(lines[3], "\x1b[") {
		t.Fatalf("no styling rendered: %q", lines[3])
	}
	for i, w := range want {
		if !strings.HasSuffix(lines[i+1], w) {
			t.Errorf("item %d = %q, want it to end in %q", i, lines[i+1], w)
		}
	}
}
