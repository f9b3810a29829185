package runtime

import (
	"reflect"
	"slices"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

// planScenario: the lead plans and delegates in one message; the
// general-purpose sub-agent plans its own work before answering.
const planScenario = `
rules:
  - {name: lead-done, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "all done"}}
  - name: lead-plan
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: todo_write, id: lead-plan, input: {todos: [{content: "Delegate the search", status: in_progress, activeForm: "Delegating the search"}, {content: "Report", status: pending}]}}
        - {name: task, id: spawn, input: {description: "Search the code", prompt: "SUB"}}
  - {name: sub-done, match: {has_tool_results: true}, respond: {text: "found it"}}
  - name: sub-plan
    respond:
      tool_calls:
        - {name: todo_write, id: sub-plan, input: {todos: [{content: "Grep for Auth", status: completed}]}}
`

func TestLeadAndSubagentEachKeepTheirOwnPlanAnnouncedAsPlanUpdate(t *testing.T) {
	h := start(t, planScenario, Config{})
	h.rt.Submit("go")
	if out := h.await(t); out.Err != nil {
		t.Fatalf("outcome %+v", out)
	}
	evs := h.events()
	var plans []event.Event
	subSession := ""
	for _, e := range evs {
		switch e.Type {
		case event.PlanUpdate:
			plans = append(plans, e)
		case event.SubagentStart:
			subSession = e.SessionID
		}
	}
	if len(plans) != 2 {
		t.Fatalf("%d plan.update events, want one from the lead and one from the sub-agent: %+v", len(plans), plans)
	}
	byAgent := map[string]event.Event{}
	for _, e := range plans {
		byAgent[e.AgentID] = e
	}
	lead, ok := byAgent[event.LeadID]
	if !ok || lead.ToolCallID != "lead-plan" || lead.SessionID != h.rt.SessionID() || lead.ParentAgentID != "" {
		t.Errorf("lead's plan.update = %+v, want agent lead, call lead-plan, the run's session", lead)
	}
	wantLead := []event.Todo{{Content: "Delegate the search", Status: "in_progress", ActiveForm: "Delegating the search"}, {Content: "Report", Status: "pending"}}
	if d, _ := event.Payload[event.PlanUpdateData](lead.Data); !reflect.DeepEqual(d.Todos, wantLead) {
		t.Errorf("lead's plan = %+v, want %+v", d.Todos, wantLead)
	}
	sub, ok := byAgent["general-purpose-1"]
	if !ok || sub.ToolCallID != "sub-plan" || sub.ParentAgentID != event.LeadID || sub.SessionID == "" || sub.SessionID != subSession {
		t.Errorf("sub-agent's plan.update = %+v, want agent general-purpose-1 of parent lead, in its own session %q", sub, subSession)
	}
	wantSub := []event.Todo{{Content: "Grep for Auth", Status: "completed"}}
	if d, _ := event.Payload[event.PlanUpdateData](sub.Data); !reflect.DeepEqual(d.Todos, wantSub) {
		t.Errorf("sub-agent's plan = %+v, want %+v", d.Todos, wantSub)
	}
	// Each plan.update comes between its call's tool.start and tool.complete.
	for _, p := range plans {
		i := slices.IndexFunc(evs, func(e event.Event) bool { return e.Type == event.PlanUpdate && e.ToolCallID == p.ToolCallID })
		started := slices.ContainsFunc(evs[:i], func(e event.Event) bool { return e.Type == event.ToolStart && e.ToolCallID == p.ToolCallID })
		completed := slices.ContainsFunc(evs[:i], func(e event.Event) bool { return e.Type == event.ToolComplete && e.ToolCallID == p.ToolCallID })
		if !started || completed {
			t.Errorf("plan.update of %s is not between its tool.start and tool.complete", p.ToolCallID)
		}
	}
	checkGating(t, evs)
}

func TestTodoWriteIsOfferedToTheLeadAndGeneralPurposeButNotExplore(t *testing.T) {
	h := start(t, `
rules:
  - {name: lead-done, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "done"}}
  - name: spawn
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "look", prompt: "A", subagent_type: explore}}
        - {name: task, input: {description: "work", prompt: "B"}}
  - {name: sub, respond: {text: "ok"}}
`, Config{})
	h.rt.Submit("go")
	h.await(t)
	tools := map[string][]string{}
	for _, e := range h.events() {
		if d, ok := event.Payload[event.SessionStartData](e.Data); ok && e.Type == event.SessionStart {
			tools[d.Name] = d.Tools
		}
	}
	for name, want := range map[string]bool{"lead": true, "general-purpose": true, "explore": false} {
		got, seen := tools[name]
		if !seen {
			t.Errorf("no session.start from %s: %v", name, tools)
			continue
		}
		if slices.Contains(got, "todo_write") != want {
			t.Errorf("%s tools %v: todo_write offered = %v, want %v", name, got, !want, want)
		}
	}
}
