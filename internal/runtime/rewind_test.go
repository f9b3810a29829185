package runtime

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// rewindScenario: prompt one has the lead write notes.txt; prompt two
// has a sub-agent change shared.txt in the lead's tree and an isolated one
// change other.txt in its worktree, which the lead then merges.
const rewindScenario = `
rules:
  - {name: sub-done, match: {first_user_contains: SUB-EDIT, has_tool_results: true}, respond: {text: "sub done"}}
  - {name: sub-edit, match: {first_user_contains: SUB-EDIT}, respond: {tool_calls: [{name: write, input: {file_path: shared.txt, content: "sub\n"}}]}}
  - {name: wt-done, match: {first_user_contains: WT-EDIT, has_tool_results: true}, respond: {text: "wt done"}}
  - {name: wt-edit, match: {first_user_contains: WT-EDIT}, respond: {tool_calls: [{name: write, input: {file_path: other.txt, content: "wt\n"}}]}}
  - {name: two-done, match: {system_contains: "You are Atomic", any_user_contains: PROMPT-TWO, tool_result_contains: "Merged branch"}, respond: {text: "two done"}}
  - name: two-merge
    match: {system_contains: "You are Atomic", any_user_contains: PROMPT-TWO, tool_result_contains: "merge_worktree(task_id"}
    respond: {tool_calls: [{name: merge_worktree, input: {task_id: general-purpose-2}}]}
  - name: two-spawn
    match: {system_contains: "You are Atomic", any_user_contains: PROMPT-TWO}
    respond:
      tool_calls:
        - {name: task, input: {description: "edit in place", prompt: "SUB-EDIT"}}
        - {name: task, input: {description: "edit in a worktree", prompt: "WT-EDIT", isolation: worktree}}
  - {name: one-done, match: {system_contains: "You are Atomic", any_user_contains: PROMPT-ONE, tool_result_contains: "Created"}, respond: {text: "one done"}}
  - {name: one-write, match: {system_contains: "You are Atomic", any_user_contains: PROMPT-ONE}, respond: {tool_calls: [{name: write, input: {file_path: notes.txt, content: "notes\n"}}]}}
`

// rewindNow runs a Rewind and waits for its outcome.
func rewindNow(t *testing.T, h *harness, req RewindRequest) (Rewound, error) {
	t.Helper()
	type result struct {
		r   Rewound
		err error
	}
	done := make(chan result, 1)
	h.rt.Rewind(req, func(r Rewound, err error) { done <- result{r, err} })
	select {
	case res := <-done:
		return res.r, res.err
	case <-time.After(10 * time.Second):
		t.Fatal("the rewind never ran")
	}
	return Rewound{}, nil
}

func readText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return "<none>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRewindRestoresTheLeadsASubAgentsAndAWorktreeMergesChangesAndTheConversation(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{"shared.txt": "base\n", "other.txt": "other\n"})
	h := start(t, rewindScenario, Config{Workspace: tools.Workspace{Root: repo}, Checkpoints: true})
	h.rt.Submit("PROMPT-ONE")
	if out := h.await(t); out.Err != nil || out.Result != "one done" {
		t.Fatalf("first prompt: %+v", out)
	}
	lead := h.rt.Lead().(backend.Rewinder)
	afterOne := len(lead.History())
	h.rt.Submit("PROMPT-TWO")
	if out := h.await(t); out.Err != nil || out.Result != "two done" {
		t.Fatalf("second prompt: %+v", out)
	}
	shared, other, notes := filepath.Join(repo, "shared.txt"), filepath.Join(repo, "other.txt"), filepath.Join(repo, "notes.txt")
	if readText(t, shared) != "sub\n" || readText(t, other) != "wt\n" || readText(t, notes) != "notes\n" {
		t.Fatalf("before the rewind: shared %q other %q notes %q", readText(t, shared), readText(t, other), readText(t, notes))
	}
	list := h.rt.Checkpoints().List()
	if len(list) != 2 || list[0].Prompt != "PROMPT-TWO" || !slices.ContainsFunc(list[0].Files, func(f string) bool { return strings.HasSuffix(f, "other.txt") }) ||
		!slices.ContainsFunc(list[0].Files, func(f string) bool { return strings.HasSuffix(f, "shared.txt") }) {
		t.Fatalf("checkpoints = %+v, want the second prompt's sub-agent and merge files", list)
	}

	got, err := rewindNow(t, h, RewindRequest{Seq: list[0].Seq, Code: true, Conversation: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Prompt != "PROMPT-TWO" || readText(t, shared) != "base\n" || readText(t, other) != "other\n" || readText(t, notes) != "notes\n" {
		t.Fatalf("after rewinding both to before the second prompt: %+v shared %q other %q notes %q", got, readText(t, shared), readText(t, other), readText(t, notes))
	}
	if n := len(lead.History()); n != afterOne {
		t.Fatalf("lead history has %d messages after the rewind, want %d (as after the first prompt)", n, afterOne)
	}
	if len(h.rt.Checkpoints().List()) != 1 {
		t.Fatalf("the rewound prompt's checkpoint stays: %+v", h.rt.Checkpoints().List())
	}

	// Code only: the file goes, the conversation stays.
	if _, err := rewindNow(t, h, RewindRequest{Seq: 1, Code: true}); err != nil {
		t.Fatal(err)
	}
	if readText(t, notes) != "<none>" || len(lead.History()) != afterOne {
		t.Fatalf("after a code-only rewind: notes %q, history %d (want %d)", readText(t, notes), len(lead.History()), afterOne)
	}
	// Conversation only: the history empties, the code is left as it is.
	if err := os.WriteFile(notes, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := rewindNow(t, h, RewindRequest{Seq: 1, Conversation: true}); err != nil {
		t.Fatal(err)
	}
	if readText(t, notes) != "mine\n" || len(lead.History()) != 0 {
		t.Fatalf("after a conversation-only rewind: notes %q, history %d", readText(t, notes), len(lead.History()))
	}
}

func TestRewindRefusesWhileABackgroundAgentRunsAndChangesNothing(t *testing.T) {
	h := start(t, `
rules:
  - {name: bg, match: {first_user_contains: SLOW}, respond: {delay_ms: 3000, text: "slow done"}}
  - {name: woken, match: {system_contains: "You are Atomic", last_user_contains: "task-notification"}, respond: {text: "all done"}}
  - {name: done, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "started"}}
  - {name: spawn, match: {system_contains: "You are Atomic"}, respond: {tool_calls: [{name: write, input: {file_path: f.txt, content: "x"}}, {name: task, input: {description: "slow", prompt: "SLOW", mode: background}}]}}
`, Config{Checkpoints: true})
	h.rt.Submit("go")
	deadline := time.Now().Add(10 * time.Second)
	for h.rt.Busy() || len(h.rt.Checkpoints().List()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the lead's turn never ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err := rewindNow(t, h, RewindRequest{Seq: 1, Code: true, Conversation: true})
	if err == nil || !strings.Contains(err.Error(), "still running") {
		t.Fatalf("rewind while a background agent runs: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(h.rt.cfg.Workspace.Root, "f.txt")); serr != nil {
		t.Fatalf("the refused rewind changed the code: %v", serr)
	}
	h.await(t)
}
