package runtime

import (
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// crashedWithShells is crashed() whose lead had started two background
// shells: shell-1 exited, shell-2 still ran when the process died.
func crashedWithShells() *Resume {
	r := crashed()
	at := r.Events[len(r.Events)-1].Time
	sh := func(typ event.Type, id string, data any) event.Event {
		at = at.Add(time.Second)
		return event.Event{Type: typ, Time: at, SessionID: "s-old", AgentID: id, ParentAgentID: event.LeadID, ToolCallID: "toolu_" + id, Data: data}
	}
	r.Events = append(r.Events,
		sh(event.ShellStart, "shell-1", event.ShellStartData{Command: "true"}),
		sh(event.ShellEnd, "shell-1", event.ShellEndData{}),
		sh(event.ShellStart, "shell-2", event.ShellStartData{Command: "sleep 100"}),
	)
	return r
}

func TestResumeEndsAStoredRunningShellInterruptedAndNewShellsNeverReuseAnOldId(t *testing.T) {
	h := start(t, `
rules:
  - {name: woken, match: {last_user_contains: "shell-notification"}, respond: {text: "heard"}}
  - {name: final, match: {has_tool_results: true}, respond: {text: "started"}}
  - {name: lead, respond: {tool_calls: [{name: bash, input: {command: "true", run_in_background: true}}]}}
`, Config{SessionID: "s-old", Resume: crashedWithShells()})
	h.rt.Submit("go")
	h.await(t)
	status := map[string]lifecycle.Status{}
	var started []string
	for _, e := range h.events() {
		switch e.Type {
		case event.ShellEnd:
			d, _ := event.Payload[event.ShellEndData](e.Data)
			if e.AgentID == "shell-2" && (!d.Interrupted || d.Reason != InterruptedReason) {
				t.Fatalf("shell-2 ended %+v; want interrupted with %q", d, InterruptedReason)
			}
		case event.ShellStart:
			started = append(started, e.AgentID)
		case event.AgentStatus:
			d, _ := event.Payload[lifecycle.StatusData](e.Data)
			status[e.AgentID] = d.Status
		}
	}
	if status["shell-2"] != lifecycle.Interrupted {
		t.Fatalf("the stored running shell-2 is %q after resume, want interrupted", status["shell-2"])
	}
	if _, moved := status["shell-1"]; moved {
		t.Fatal("the stored ended shell-1 was ended again")
	}
	if len(started) != 1 || started[0] != "shell-3" {
		t.Fatalf("the resumed run's shell is %v, want shell-3 (shell-1 and shell-2 are the stored session's)", started)
	}
	if status["shell-3"] != lifecycle.Completed {
		t.Fatalf("the new shell-3 is %q, want completed (a reused id would be ignored by the reducer)", status["shell-3"])
	}
}
