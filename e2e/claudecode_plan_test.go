//go:build unix

package e2e

import (
	"reflect"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

const claudePlan = `
rules:
  - name: lead-final
    match: {last_user_contains: "PLANIT", has_tool_results: true}
    respond: {text: "Planned."}
  - name: lead-plan
    match: {last_user_contains: "PLANIT", has_tool_results: false}
    respond:
      tool_calls:
        - {name: TodoWrite, input: {todos: [{content: "Read the code", status: completed, activeForm: "Reading the code"}, {content: "Fix the bug", status: in_progress, activeForm: "Fixing the bug"}]}}
  - name: other
    respond: {text: "OK."}
`

func TestClaudeCodeTodoWriteReachesUsAsTheLeadsPlan(t *testing.T) {
	// This CLI offers TodoWrite (deferred behind ToolSearch) only with its
	// task tools off and its todo tools on.
	t.Setenv("CLAUDE_CODE_ENABLE_TASKS", "0")
	t.Setenv("CLAUDE_CODE_ENABLE_TODO_TOOLS", "1")
	s, rec, _ := claudeSession(t, claudePlan, nil)
	if _, err := s.Run(runCtx(t), "PLANIT: make a plan."); err != nil {
		t.Fatal(err)
	}
	want := []event.Todo{{Content: "Read the code", Status: "completed", ActiveForm: "Reading the code"},
		{Content: "Fix the bug", Status: "in_progress", ActiveForm: "Fixing the bug"}}
	var plans [][]event.Todo
	succeeded := false
	for _, e := range rec.snapshot() {
		switch d := e.Data.(type) {
		case event.PlanUpdateData:
			if e.AgentID == "lead" {
				plans = append(plans, d.Todos)
			}
		case event.ToolCompleteData:
			succeeded = succeeded || (d.Name == "todo_write" && d.Success)
		}
	}
	if len(plans) != 1 || !reflect.DeepEqual(plans[0], want) {
		t.Fatalf("the lead's plan.update events carried %+v, want one with %+v", plans, want)
	}
	if !succeeded {
		t.Errorf("no successful todo_write tool.complete: the CLI did not run its TodoWrite")
	}
}
