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
