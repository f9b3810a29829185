package runtime

import (
	"context"
	"sync"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/testkit"
)

const nestedApproval = `
rules:
  - {name: lead-final, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "done"}}
  - {name: lead, match: {system_contains: "You are Atomic"}, respond: {tool_calls: [{name: task, input: {description: "review", prompt: "L1 review"}}]}}
  - {name: l2-done, match: {first_user_contains: L2, has_tool_results: true}, respond: {text: "l2 done"}}
  - {name: l2, match: {first_user_contains: L2}, respond: {tool_calls: [{name: bash, input: {command: "touch made.txt"}}]}}
  - {name: l1-done, match: {first_user_contains: L1, has_tool_results: true}, respond: {text: "l1 done"}}
  - {name: l1, match: {first_user_contains: L1}, respond: {tool_calls: [{name: task, input: {description: "make", prompt: "L2 make"}}]}}
`

func TestAnApprovalOfANestedAgentNamesItsPathFromTheLead(t *testing.T) {
	var mu sync.Mutex
	var asked []permission.Request
	gate := testkit.Gate(t, testkit.AskerFunc(func(_ context.Context, r permission.Request) (permission.Answer, error) {
		mu.Lock()
		asked = append(asked, r)
		mu.Unlock()
		return permission.AllowOnce, nil
	}))
	h, _ := startWith(t, nestedApproval, Config{Gate: gate})
	h.rt.Submit("go")
	if out := h.await(t); out.Err != nil || out.Result != "done" {
		t.Fatalf("outcome %+v", out)
	}
	const want = "lead › general-purpose-1 › general-purpose-2"
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0].Path != want || asked[0].AgentID != "general-purpose-2" {
		t.Fatalf("asked %+v, want one prompt from %q", asked, want)
	}
	var paths []string
	for _, e := range h.events() {
		if e.Type == event.PermissionRequested {
			d, _ := event.Payload[event.PermissionRequestedData](e.Data)
			paths = append(paths, d.Path)
		}
	}
	if len(paths) != 1 || paths[0] != want {
		t.Fatalf("permission.requested paths %q, want [%q]", paths, want)
	}
}

const mateNests = `
rules:
  - {name: final, match: {system_contains: "You are Atomic", tool_result_contains: "Deleted team"}, respond: {text: "done"}}
  - name: told
    match: {system_contains: "You are Atomic", last_user_contains: "alice reports: found 42"}
    respond: {tool_calls: [{name: team_delete, input: {}}]}
  - {name: lead-waits, match: {system_contains: "You are Atomic", tool_result_contains: "Spawned teammate"}, respond: {text: "waiting for alice"}}
  - name: spawn
    match: {system_contains: "You are Atomic", tool_result_contains: "Created team"}
    respond: {tool_calls: [{name: team_spawn, input: {name: alice, role: finder, prompt: "MATE find it"}}]}
  - {name: create, match: {system_contains: "You are Atomic"}, respond: {tool_calls: [{name: team_create, input: {name: crew}}]}}
  - {name: grandchild, match: {system_contains: "You are a sub-agent", first_user_contains: GRAND}, respond: {text: "found 42", delay_ms: 200}}
  - {name: mate-sent, match: {system_contains: "a teammate in team", last_user_contains: "found 42", has_tool_results: true}, respond: {text: "reported"}}
  - name: mate-report
    match: {system_contains: "a teammate in team", last_user_contains: "found 42"}
    respond: {tool_calls: [{name: send_message, input: {to: lead, content: "alice reports: found 42"}}]}
  - {name: mate-ack, match: {system_contains: "a teammate in team", tool_result_contains: "Started background task"}, respond: {text: "started it, waiting"}}
  - name: mate-start
    match: {system_contains: "a teammate in team"}
    respond: {tool_calls: [{name: task, input: {description: "find", prompt: "GRAND find", mode: background}}]}
`

func TestATeammateStartsABackgroundSubagentIsWokenByItsResultAndReportsIt(t *testing.T) {
	h, srv := startWith(t, mateNests, Config{Teams: true})
	h.rt.Submit("form a team")
	if out := h.await(t); out.Err != nil || out.Result != "done" {
		t.Fatalf("outcome %+v", out)
	}
	checkOffered(t, "a teammate's first request", offered(t, srv, "mate-start"), true, "task")
	checkOffered(t, "a teammate's first request", offered(t, srv, "mate-start"), false, companions...)
	checkOffered(t, "a teammate after its background task", offered(t, srv, "mate-report"), true, companions...)
	r, ok := h.rt.Bus().Agent("general-purpose-1")
	if !ok || r.ParentID != "team/alice" || r.Result != "found 42" {
		t.Fatalf("the teammate's sub-agent: %+v (found %v), want parent team/alice, result found 42", r, ok)
	}
}
