package e2e

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
)

func firstKey[V any](m map[string]V) string {
	for k := range m {
		return k
	}
	return ""
}

func TestBackgroundCompanionToolsReportTasksAndRefuseUnknownIDs(t *testing.T) {
	srv := server(t, `
rules:
  - name: lead
    match: {system_contains: "You are Atomic"}
    sequence:
      - tool_calls:
          - {name: task, input: {description: "slow one", prompt: "SLOW", subagent_type: explore, mode: background}}
          - {name: task, input: {description: "fast one", prompt: "FAST", subagent_type: explore, mode: async}}
      - tool_calls:
          - {name: check_task, input: {task_id: "nope"}}
          - {name: wait_for_task, input: {task_id: "explore-2"}}
      - tool_calls:
          - {name: check_task, input: {task_id: "explore-1"}}
          - {name: list_background_tasks, input: {}}
          - {name: wait_for_task, input: {task_id: "explore-1", timeout_seconds: 0.2}}
      - tool_calls:
          - {name: cancel_task, input: {task_id: "explore-1"}}
          - {name: cancel_task, input: {task_id: "explore-2"}}
      - tool_calls:
          - {name: check_task, input: {task_id: "explore-1"}}
          - {name: wait_for_task, input: {task_id: "explore-1"}}
      - text: "all checked"
  - {name: slow, match: {first_user_contains: SLOW}, respond: {text: "slow result", delay_ms: 20000}}
  - {name: fast, match: {first_user_contains: FAST}, respond: {text: "FAST RESULT"}}
`)
	r := atomic(t, srv, "anthropic", t.TempDir(), "-p", "go")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "all checked" {
		t.Fatalf("code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if r.elapsed > 15e9 {
		t.Fatalf("took %s: the cancelled slow task was waited for", r.elapsed)
	}
	lead := loopback.ByRule(srv.Log(), "lead")
	results := func(i int) []loopback.LogToolResult { return lead[i].LastToolResults() }
	expect := func(step, i int, want ...string) {
		t.Helper()
		res := results(step)
		if i >= len(res) {
			t.Fatalf("step %d has %d results", step, len(res))
		}
		for _, w := range want {
			if !strings.Contains(res[i].Content, w) {
				t.Errorf("step %d result %d = %q, want it to contain %q", step, i, res[i].Content, w)
			}
		}
	}
	expect(1, 0, "Started background task explore-1")
	expect(1, 1, "Started background task explore-2")
	expect(2, 0, `unknown task_id "nope"`, "explore-1, explore-2")
	if !results(2)[0].IsError {
		t.Error("an unknown id must be a tool error")
	}
	expect(2, 1, "explore-2: completed", "FAST RESULT")
	expect(3, 0, "explore-1: running")
	expect(3, 1, "explore-1", "explore-2", "completed", "slow one", "fast one")
	expect(3, 2, "Timed out", "explore-1: running")
	expect(4, 0, "explore-1 cancelled")
	expect(4, 1, "already finished")
	expect(5, 0, "explore-1: cancelled")
	expect(5, 1, "explore-1: cancelled")
}

func TestSubagentNeedingApprovalInHeadlessModeIsDeniedClearlyAndTheRunEnds(t *testing.T) {
	srv := server(t, `
rules:
  - name: lead-final
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond: {text: "the helper could not run it"}
  - name: lead
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "Clean the build", prompt: "CLEAN the build folder"}}
  - name: sub-after
    match: {system_contains: "You are a sub-agent", has_tool_results: true}
    respond: {text: "I was not allowed to run rm"}
  - name: sub
    match: {system_contains: "You are a sub-agent"}
    respond:
      tool_calls:
        - {name: bash, input: {command: "rm -rf build"}}
`)
	ws := workspace(t, map[string]string{"build/out.bin": "keep me"})
	r := atomic(t, srv, "anthropic", ws, "-p", "clean up", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	asked := index(evs, func(e event.Raw) bool { return e.Type == event.PermissionRequested })
	denied := index(evs, func(e event.Raw) bool {
		return e.Type == event.PermissionResolved && !data[event.PermissionResolvedData](t, e).Allowed
	})
	if asked < 0 || denied < asked || data[event.PermissionRequestedData](t, evs[asked]).AgentName != "general-purpose-1" {
		t.Fatalf("stream-json must show the sub-agent's approval request and its denial (%d, %d)", asked, denied)
	}
	back := loopback.ByRule(srv.Log(), "sub-after")
	if len(back) != 1 {
		t.Fatalf("the sub-agent never got its denial back")
	}
	res := back[0].LastToolResults()[0]
	for _, w := range []string{"permission denied", "general-purpose-1", "--allowed-tools 'bash(rm:*)'", "--permission-mode bypassPermissions"} {
		if !strings.Contains(res.Content, w) {
			t.Errorf("denial %q should mention %q", res.Content, w)
		}
	}
	if seqs := statusesByAgent(t, evs); len(seqs) != 1 || seqs[firstKey(seqs)][len(seqs[firstKey(seqs)])-1] != lifecycle.Completed {
		t.Fatalf("the sub-agent should finish normally: %v", seqs)
	}
	if _, err := readFile(ws, "build/out.bin"); err != nil {
		t.Fatal("the denied command ran anyway")
	}
}
