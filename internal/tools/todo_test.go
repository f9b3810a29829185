package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

func TestTodoWriteRejectsBadPlansNamingTheItemAndValue(t *testing.T) {
	tests := []struct {
		name  string
		input any
		wants []string
	}{
		{"missing todos", map[string]any{}, []string{"missing required field `todos`"}},
		{"todos not a list", map[string]any{"todos": "write tests"}, []string{"`todos` must be an array"}},
		{"empty content", map[string]any{"todos": []any{
			map[string]any{"content": "Read the code", "status": "completed"},
			map[string]any{"content": "  ", "status": "pending"},
		}}, []string{"todos[1]", "`content` is empty"}},
		{"unknown status", map[string]any{"todos": []any{
			map[string]any{"content": "Run the tests", "status": "done"},
		}}, []string{"todos[0]", `"Run the tests"`, `unknown status "done"`, "allowed: pending, in_progress, completed"}},
		{"missing status", map[string]any{"todos": []any{
			map[string]any{"content": "Run the tests"},
		}}, []string{"todos[0]", "`status` is missing", "allowed: pending"}},
		{"duplicate ids", map[string]any{"todos": []any{
			map[string]any{"content": "A", "status": "pending", "id": "1"},
			map[string]any{"content": "B", "status": "pending", "id": "1"},
		}}, []string{"todos[0] and todos[1]", `"1"`, "unique"}},
		{"unknown item field", map[string]any{"todos": []any{
			map[string]any{"content": "A", "status": "pending", "priority": "high"},
		}}, []string{"priority"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			td := NewTodoWrite()
			assertContains(t, mustFail(t, td, tt.input), tt.wants...)
			if p := td.Plan(""); len(p) != 0 {
				t.Errorf("a rejected plan was saved: %v", p)
			}
		})
	}
}

func TestTodoWriteSavesThePlanAndRestatesItsCounts(t *testing.T) {
	tests := []struct {
		name  string
		todos []map[string]any
		want  string
	}{
		{"one in progress", []map[string]any{
			{"content": "Read the code", "status": "completed"},
			{"content": "Write the tests", "status": "in_progress", "activeForm": "Writing the tests"},
			{"content": "Run the suite", "status": "pending"},
		}, "Plan saved: 3 items (1 completed, 1 in progress, 1 pending). Keep the plan up to date as you work."},
		{"two in progress is allowed but nudged", []map[string]any{
			{"content": "A", "status": "in_progress"},
			{"content": "B", "status": "in_progress"},
		}, "Plan saved: 2 items (0 completed, 2 in progress, 0 pending). Keep only one item in_progress at a time: finish one before starting the next."},
		{"nothing started", []map[string]any{
			{"content": "A", "status": "pending"},
		}, "Plan saved: 1 item (0 completed, 0 in progress, 1 pending). Mark the item you work on next in_progress when you start it."},
		{"all done", []map[string]any{
			{"content": "A", "status": "completed"},
		}, "Plan saved: 1 item (1 completed, 0 in progress, 0 pending). Every item is completed."},
		{"cleared", []map[string]any{}, "Plan cleared: you have no items."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustSucceed(t, NewTodoWrite(), map[string]any{"todos": tt.todos}); got != tt.want {
				t.Errorf("result = %q\nwant     %q", got, tt.want)
			}
		})
	}
}

func TestTodoWriteKeepsOnePlanPerAgentAndAnnouncesIt(t *testing.T) {
	td := NewTodoWrite()
	write := func(agent string, todos ...event.Todo) Result {
		t.Helper()
		res := Execute(context.Background(), td, Call{ID: "c", AgentID: agent, Input: input(t, map[string]any{"todos": todos})})
		if res.IsError {
			t.Fatalf("todo_write for %s: %s", agent, res.Content)
		}
		return res
	}
	lead1 := []event.Todo{{Content: "Plan", Status: "in_progress", ActiveForm: "Planning"}, {Content: "Ship", Status: "pending"}}
	sub := []event.Todo{{Content: "Search", Status: "pending", ID: "s1"}}
	lead2 := []event.Todo{{Content: "Plan", Status: "completed"}, {Content: "Ship", Status: "in_progress"}}
	write("lead", lead1...)
	res := write("general-purpose-1", sub...)
	if res.Announce == nil || res.Announce.Type != event.PlanUpdate {
		t.Fatalf("announcement = %+v, want a plan.update", res.Announce)
	}
	if d, ok := res.Announce.Data.(event.PlanUpdateData); !ok || !reflect.DeepEqual(d.Todos, sub) {
		t.Errorf("announced %+v, want the sub-agent's list %+v", res.Announce.Data, sub)
	}
	if got := write("lead", lead2...).Content; !strings.HasSuffix(got, "Completed since your last update: Plan.") {
		t.Errorf("lead's second result = %q, want it to name the item it completed since its own last list", got)
	}
	if got := write("general-purpose-1", event.Todo{Content: "Plan", Status: "completed"}).Content; strings.Contains(got, "since your last update") {
		t.Errorf("sub-agent's result = %q names items of the lead's list", got)
	}
	write("general-purpose-1", sub...)
	if got := td.Plan("lead"); !reflect.DeepEqual(got, lead2) {
		t.Errorf("lead's plan = %+v, want the later list %+v (a call replaces the whole list)", got, lead2)
	}
	if got := td.Plan("general-purpose-1"); !reflect.DeepEqual(got, sub) {
		t.Errorf("sub-agent's plan = %+v, want its own %+v", got, sub)
	}
}

func TestTodoWriteSubjectIsTheItemInProgressWithProgress(t *testing.T) {
	td := NewTodoWrite()
	tests := []struct {
		todos []event.Todo
		want  string
	}{
		{[]event.Todo{{Content: "Read", Status: "completed"}, {Content: "Test", Status: "in_progress", ActiveForm: "Testing"}}, "Testing · 1/2 done"},
		{[]event.Todo{{Content: "Test", Status: "in_progress"}}, "Test · 0/1 done"},
		{[]event.Todo{{Content: "Read", Status: "completed"}, {Content: "Test", Status: "pending"}}, "plan · 1/2 done"},
	}
	for _, tt := range tests {
		raw, _ := json.Marshal(map[string]any{"todos": tt.todos})
		if got := td.Subject(raw); got != tt.want {
			t.Errorf("Subject(%s) = %q, want %q", raw, got, tt.want)
		}
	}
}
