package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

const isolatedAnswers = `
rules:
  - {name: done, match: {has_tool_results: true}, respond: {text: "edited"}}
  - name: edit
    match: {first_user_contains: EDIT}
    respond: {tool_calls: [{name: write, input: {file_path: a.txt, content: "agent\n"}}]}
  - {name: look, respond: {text: "looked"}}
`

func isolatedManager(t *testing.T, workspace string, types ...spawn.Type) (*Manager, *sink) {
	t.Helper()
	p, _ := testkit.Model(t, isolatedAnswers)
	s := &sink{}
	m := New(Config{SessionID: "s", Provider: p, Model: "test-model", Sink: s, Workspace: workspace,
		Tools: tools.Core(tools.Workspace{Root: workspace}), Gate: testkit.AllowAll(t), Types: spawn.NewRegistry(types...)})
	t.Cleanup(m.Close)
	return m, s
}

func TestAnIsolatedAgentEditsItsWorktreeAndReportsTheBranchAndDiffStat(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "lead\n"})
	m, s := isolatedManager(t, repo)
	res := m.SpawnParallel(context.Background(), []Spec{{Prompt: "EDIT a.txt", Description: "edit a", Isolation: spawn.Worktree}})
	r := res[0]
	if r.Status != lifecycle.Completed {
		t.Fatalf("record %+v err %v", r.Record, r.Err)
	}
	for _, want := range []string{"edited", "branch atomic/general-purpose-1", "a.txt | 2 +-", `merge_worktree(task_id: "general-purpose-1")`} {
		if !strings.Contains(r.Result, want) {
			t.Errorf("result lacks %q:\n%s", want, r.Result)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); string(b) != "lead\n" {
		t.Fatalf("the agent wrote the lead's tree: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, ".atomic/worktrees/general-purpose-1/a.txt")); string(b) != "agent\n" {
		t.Fatalf("worktree file %q", b)
	}
	s.mu.Lock()
	for _, e := range s.evs {
		if e.Type == event.SubagentStart {
			if d := e.Data.(event.SubagentStartData); d.Worktree != filepath.Join(repo, ".atomic/worktrees/general-purpose-1") {
				t.Errorf("subagent.start worktree %q", d.Worktree)
			}
		}
	}
	s.mu.Unlock()
	list, err := m.Worktrees(context.Background())
	if err != nil || len(list) != 1 || list[0].State != WorktreeReady || !strings.Contains(list[0].Stat, "1 file changed") {
		t.Fatalf("worktrees %+v %v", list, err)
	}
	if _, err := m.DiscardWorktree(context.Background(), "general-purpose-1"); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Git(t, repo, "branch", "--list", "atomic/*"); got != "" {
		t.Fatalf("discard left %s", got)
	}
}

func TestAnAgentTypeWithIsolationWorktreeIsIsolatedAndUnchangedWorktreesGo(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "lead\n"})
	m, _ := isolatedManager(t, repo, spawn.Type{Name: "looker", Description: "looks", Isolation: spawn.Worktree, Source: "test"})
	r := m.SpawnParallel(context.Background(), []Spec{{Prompt: "look", Description: "look", Type: "looker"}})[0]
	if r.Status != lifecycle.Completed || !strings.Contains(r.Result, "no files were changed; the worktree was removed") {
		t.Fatalf("record %+v", r.Record)
	}
	if got := testkit.Git(t, repo, "worktree", "list"); strings.Contains(got, ".atomic") {
		t.Fatalf("unchanged worktree kept: %s", got)
	}
}

func TestIsolationOutsideAGitRepositoryFailsThatTaskOnly(t *testing.T) {
	dir := t.TempDir()
	m, _ := isolatedManager(t, dir)
	res := m.SpawnParallel(context.Background(), []Spec{
		{Prompt: "EDIT", Description: "isolated", Isolation: spawn.Worktree},
		{Prompt: "look", Description: "sibling"},
	})
	if res[0].Err == nil || !strings.Contains(res[0].Err.Error(), "needs a git repository") {
		t.Fatalf("isolated task: %v", res[0].Err)
	}
	if res[1].Status != lifecycle.Completed {
		t.Fatalf("sibling: %+v %v", res[1].Record, res[1].Err)
	}
}

func TestMergeWorktreeOfAnUnknownIdNamesTheWorktreesToMergeAndIsGatedAsAnEdit(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "lead\n"})
	m, _ := isolatedManager(t, repo)
	m.SpawnParallel(context.Background(), []Spec{{Prompt: "EDIT", Description: "edit", Isolation: spawn.Worktree}})
	tool := NewMergeWorktree(m)
	_, err := tool.Run(context.Background(), tools.Call{Input: json.RawMessage(`{"task_id":"nope-1"}`)})
	if err == nil || !strings.Contains(err.Error(), `unknown task_id "nope-1"`) || !strings.Contains(err.Error(), "general-purpose-1") {
		t.Fatalf("unknown id: %v", err)
	}
	if tool.Kind() != tools.Edit {
		t.Fatal("merge_worktree changes the lead's files: it must be gated as an edit")
	}
}

func TestTaskToolRejectsAnUnknownIsolation(t *testing.T) {
	m, _ := isolatedManager(t, t.TempDir())
	_, err := NewTaskTool(m).Run(context.Background(), tools.Call{ID: "c1", Input: json.RawMessage(`{"description":"x","prompt":"y","isolation":"container"}`)})
	if err == nil || !strings.Contains(err.Error(), `isolation "container" is not supported`) {
		t.Fatalf("got %v", err)
	}
}

func TestAnIsolatedAgentsToolsWaitUntilItsWorktreeIsFilled(t *testing.T) {
	files := map[string]string{"a.txt": "lead\n"}
	for i := range 400 {
		files[fmt.Sprintf("pkg%d/file%d.txt", i%20, i)] = "content\n"
	}
	repo := testkit.GitRepo(t, files)
	m, _ := isolatedManager(t, repo)
	r := m.SpawnParallel(context.Background(), []Spec{{Prompt: "EDIT a.txt", Description: "edit a", Isolation: spawn.Worktree}})[0]
	if r.Status != lifecycle.Completed {
		t.Fatalf("record %+v err %v", r.Record, r.Err)
	}
	if !strings.Contains(r.Result, " 1 file changed, 1 insertion(+), 1 deletion(-)") {
		t.Fatalf("the branch should hold the one edit and nothing else:\n%s", r.Result)
	}
	if got := testkit.Git(t, repo, "show", "atomic/general-purpose-1:a.txt"); got != "agent" {
		t.Fatalf("a.txt on the branch: %q", got)
	}
}

func TestAnIsolatedAgentOnAnotherBackendWorksInItsWorktree(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "lead\n"})
	p, _ := testkit.Model(t, isolatedAnswers)
	o := &opened{}
	types := spawn.NewRegistry(spawn.Type{Name: "outsider", Description: "runs elsewhere", Backend: "elsewhere", Source: "outsider.md"})
	m := New(Config{SessionID: "s", Provider: p, Model: "lead-model", Types: types, Tools: tools.NewSet(),
		Workspace: repo, Backends: elsewhere(p, o, nil)})
	t.Cleanup(m.Close)
	r := m.SpawnParallel(context.Background(), []Spec{{Prompt: "look", Description: "look", Type: "outsider", Isolation: spawn.Worktree}})[0]
	if r.Status != lifecycle.Completed {
		t.Fatalf("record %+v %v", r.Record, r.Err)
	}
	if len(o.cfgs) != 1 || o.cfgs[0].Workspace != filepath.Join(repo, ".atomic", "worktrees", "outsider-1") {
		t.Fatalf("the CLI's workspace: %+v", o.cfgs)
	}
}

func TestCancellingAnIsolatedBackgroundAgentLeavesNoLockedWorktree(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "lead\n"})
	p, srv := testkit.Model(t, `
rules:
  - {name: slow, respond: {text: "slow", delay_ms: 30000}}
`)
	m := New(Config{SessionID: "s", Provider: p, Model: "m", Workspace: repo, Tools: tools.Core(tools.Workspace{Root: repo}), Gate: testkit.AllowAll(t)})
	t.Cleanup(m.Close)
	task, err := m.Spawn(context.Background(), Spec{Prompt: "work", Description: "bg work", Background: true, Isolation: spawn.Worktree})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 10*time.Second, "the agent's request in flight", func() bool { return srv.InFlight() >= 1 })
	if err := m.Cancel(task.ID); err != nil {
		t.Fatal(err)
	}
	<-task.Done()
	if got := testkit.Git(t, repo, "worktree", "list", "--porcelain"); strings.Contains(got, "locked") || strings.Contains(got, ".atomic") {
		t.Fatalf("after cancel:\n%s", got)
	}
	if got := testkit.Git(t, repo, "branch", "--list", "atomic/*"); got != "" {
		t.Fatalf("an unchanged cancelled agent's branch stays: %s", got)
	}
}
