package runtime

import (
	"strings"
	"testing"
)

func TestLeadAndSubagentSystemPromptsCarryTheProjectMemory(t *testing.T) {
	const memory = "# Project memory\n\nContents of /repo/AGENTS.md (project instructions):\n\nAlways run gofmt."
	h, srv := startWith(t, `
rules:
  - {name: lead-final, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "done"}}
  - name: lead-spawn
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls: [{name: task, input: {description: "look around", prompt: "LOOK", subagent_type: explore}}]
  - {name: sub, match: {system_contains: "You are a sub-agent"}, respond: {text: "looked"}}
`, Config{Memory: memory})
	h.rt.Submit("go")
	if out := h.await(t); out.Err != nil || out.Result != "done" {
		t.Fatalf("outcome %+v", out)
	}
	seen := map[string]bool{}
	for _, e := range srv.Log() {
		seen[e.Rule] = true
		if !strings.Contains(e.System, memory) {
			t.Errorf("request answered by %s: system prompt lacks the memory:\n%s", e.Rule, e.System)
		}
		if e.Rule == "sub" && strings.Contains(e.System, "You are Atomic, a terminal coding agent. You help") {
			t.Errorf("the sub-agent got the lead's prompt:\n%s", e.System)
		}
	}
	for _, r := range []string{"lead-spawn", "sub", "lead-final"} {
		if !seen[r] {
			t.Errorf("no request answered by %s", r)
		}
	}
}
