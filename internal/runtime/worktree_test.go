package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// The done-criterion: two isolated sub-agents edit the same file
// in parallel; both finish on their own branches, the lead's tree stays
// untouched until merge_worktree, the first merge applies and the second
// reports the conflict with nothing half-applied.
func TestTwoIsolatedAgentsEditingOneFileMergeOnceAndConflictOnceWithNothingHalfApplied(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{"shared.txt": "base\n", "other.txt": "other\n"})
	leadFile := filepath.Join(repo, "shared.txt")
	h := start(t, `
rules:
  - {name: done, match: {system_contains: "You are Atomic", tool_result_contains: "does not apply"}, respond: {text: "second merge conflicted"}}
  - name: merge-second
    match: {system_contains: "You are Atomic", tool_result_contains: "Merged branch"}
    respond: {tool_calls: [{name: merge_worktree, input: {task_id: general-purpose-2}}]}
  - name: merge-first
    match: {system_contains: "You are Atomic", tool_result_contains: "merge_worktree(task_id"}
    respond: {tool_calls: [{name: merge_worktree, input: {task_id: general-purpose-1}}]}
  - name: spawn
    match: {system_contains: "You are Atomic", has_tool_results: false}
    respond:
      tool_calls:
        - {name: task, input: {description: "edit as one", prompt: "EDIT-ONE", isolation: worktree}}
        - {name: task, input: {description: "edit as two", prompt: "EDIT-TWO", isolation: worktree}}
  - {name: one-done, match: {first_user_contains: EDIT-ONE, has_tool_results: true}, respond: {text: "one done"}}
  - name: one-edit
    match: {first_user_contains: EDIT-ONE}
    respond: {delay_ms: 200, tool_calls: [{name: write, input: {file_path: shared.txt, content: "one\n"}}]}
  - {name: two-done, match: {first_user_contains: EDIT-TWO, has_tool_results: true}, respond: {text: "two done"}}
  - name: two-edit
    match: {first_user_contains: EDIT-TWO}
    respond:
      delay_ms: 200
      tool_calls:
        - {name: write, input: {file_path: shared.txt, content: "two\n"}}
        - {name: write, input: {file_path: other.txt, content: "only two changed this\n"}}
`, Config{Workspace: tools.Workspace{Root: repo}})

	var mu sync.Mutex
	worktrees := map[string]string{}
	var leadAtComplete []string
	h.rt.Bus().Subscribe(func(e event.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Type {
		case event.SubagentStart:
			d, _ := event.Payload[event.SubagentStartData](e.Data)
			worktrees[e.AgentID] = d.Worktree
		case event.SubagentComplete:
			b, _ := os.ReadFile(leadFile)
			leadAtComplete = append(leadAtComplete, string(b))
		}
	})
	h.rt.Submit("edit shared.txt twice")
	out := h.await(t)
	if out.Err != nil || out.Result != "second merge conflicted" {
		t.Fatalf("outcome %+v", out)
	}

	mu.Lock()
	defer mu.Unlock()
	for _, id := range []string{"general-purpose-1", "general-purpose-2"} {
		if want := filepath.Join(repo, ".atomic", "worktrees", id); worktrees[id] != want {
			t.Errorf("subagent.start of %s: worktree %q, want %q", id, worktrees[id], want)
		}
	}
	if len(leadAtComplete) != 2 || leadAtComplete[0] != "base\n" || leadAtComplete[1] != "base\n" {
		t.Errorf("the lead's file when each agent finished: %q (want untouched)", leadAtComplete)
	}
	if got := testkit.Git(t, repo, "log", "-1", "--format=%s", "atomic/general-purpose-2"); got != "atomic: general-purpose-2: edit as two" {
		t.Errorf("second branch commit %q", got)
	}
	if got := testkit.Git(t, repo, "branch", "--list", "atomic/general-purpose-1"); got != "" {
		t.Errorf("the merged branch stays: %s", got)
	}
	b, _ := os.ReadFile(leadFile)
	o, _ := os.ReadFile(filepath.Join(repo, "other.txt"))
	if string(b) != "one\n" || string(o) != "other\n" {
		t.Errorf("lead's tree after one merge and one conflict: shared.txt %q, other.txt %q", b, o)
	}
	if got := testkit.Git(t, repo, "status", "--porcelain"); got != " M shared.txt" {
		t.Errorf("lead's status: %q", got)
	}
	var conflictReport string
	for _, e := range h.events() {
		if d, ok := event.Payload[event.ToolCompleteData](e.Data); ok && d.Name == "merge_worktree" && !d.Success {
			conflictReport = d.Error
		}
	}
	if !strings.Contains(conflictReport, "shared.txt") || !strings.Contains(conflictReport, "nothing was changed") {
		t.Errorf("the conflict report: %q", conflictReport)
	}
}
