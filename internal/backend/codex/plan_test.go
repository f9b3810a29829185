//go:build unix

package codex

import (
	"reflect"
	"testing"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
)

func TestTurnPlanUpdatedBecomesTheLeadsPlanUpdate(t *testing.T) {
	var got []event.Event
	tr := NewTranslator(backend.Config{SessionID: "s1", AgentID: "lead", Sink: event.SinkFunc(func(e event.Event) { got = append(got, e) })}, nil)
	tr.SetLead("th")
	m, ok := decodeLine([]byte(`{"method":"turn/plan/updated","params":{"threadId":"th","turnId":"tu1","explanation":"Fixing it",` +
		`"plan":[{"step":"Read the code","status":"completed"},{"step":"Fix the bug","status":"inProgress"},{"step":"Run the tests","status":"pending"}]}}`))
	if !ok {
		t.Fatal("turn/plan/updated was dropped unread")
	}
	tr.Handle(m)
	want := []event.Todo{{Content: "Read the code", Status: "completed"}, {Content: "Fix the bug", Status: "in_progress"}, {Content: "Run the tests", Status: "pending"}}
	if len(got) != 1 || got[0].Type != event.PlanUpdate {
		t.Fatalf("events = %+v, want one plan.update", got)
	}
	d, _ := event.Payload[event.PlanUpdateData](got[0].Data)
	if got[0].AgentID != "lead" || got[0].SessionID != "s1" || !reflect.DeepEqual(d.Todos, want) {
		t.Errorf("plan.update = %+v with %+v, want the lead's %+v", got[0], d.Todos, want)
	}
}

// codexPlan has the lead set its plan with Codex's update_plan tool.
const codexPlan = `
rules:
  - name: lead-final
    match: {has_tool_results: true}
    respond: {text: Planned.}
  - name: lead-plan
    match: {last_user_contains: PLANIT, tools_include: [update_plan]}
    respond:
      tool_calls:
        - {name: update_plan, input: {plan: [{step: "Read the code", status: completed}, {step: "Fix the bug", status: in_progress}]}}
`

func TestRealCodexUpdatePlanReachesUsAsTheLeadsPlan(t *testing.T) {
	s, srv, rec, ctx := realLoopbackSession(t, codexPlan, "gpt-test")
	if res, err := s.Run(ctx, "PLANIT: make a plan."); err != nil || res.Text != "Planned." {
		for _, e := range srv.Log() {
			t.Logf("request %d: rule %q, %s, tools %v", e.Seq, e.Rule, e.Outcome, e.Tools)
		}
		t.Fatalf("lead turn = %+v, %v; want it planned", res, err)
	}
	want := []event.Todo{{Content: "Read the code", Status: "completed"}, {Content: "Fix the bug", Status: "in_progress"}}
	var plans [][]event.Todo
	rec.mu.Lock()
	evs := append([]event.Event(nil), rec.events...)
	rec.mu.Unlock()
	for _, e := range evs {
		if d, ok := e.Data.(event.PlanUpdateData); ok && e.AgentID == "lead" {
			plans = append(plans, d.Todos)
		}
	}
	if len(plans) != 1 || !reflect.DeepEqual(plans[0], want) {
		t.Fatalf("the lead's plan.update events carried %+v, want one with %+v", plans, want)
	}
}
