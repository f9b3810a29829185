package claudecode

import (
	"reflect"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

func TestTodoWriteOfTheCLIBecomesOurTodoWriteAndAPlanUpdate(t *testing.T) {
	call := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"tw1","name":"TodoWrite","input":{"todos":[` +
		`{"content":"Read the code","status":"completed","activeForm":"Reading the code"},` +
		`{"content":"Fix the bug","status":"in_progress","activeForm":"Fixing the bug"}]}}]},"parent_tool_use_id":null}`
	evs := feedLines(t, call)
	var start, plan *event.Event
	for i, e := range evs {
		switch e.Type {
		case event.ToolStart:
			start = &evs[i]
		case event.PlanUpdate:
			plan = &evs[i]
		}
	}
	if start == nil || start.Data.(event.ToolStartData).Name != "todo_write" {
		t.Fatalf("tool.start = %+v, want our todo_write", start)
	}
	if plan == nil {
		t.Fatalf("no plan.update among %+v", evs)
	}
	want := []event.Todo{{Content: "Read the code", Status: "completed", ActiveForm: "Reading the code"},
		{Content: "Fix the bug", Status: "in_progress", ActiveForm: "Fixing the bug"}}
	d, _ := event.Payload[event.PlanUpdateData](plan.Data)
	if plan.AgentID != "lead" || plan.ToolCallID != "tw1" || !reflect.DeepEqual(d.Todos, want) {
		t.Errorf("plan.update = %+v with %+v, want the lead's list of call tw1 %+v", plan, d.Todos, want)
	}
}
