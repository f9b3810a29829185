package subagent

import (
	"context"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestIsolatedSiblingsShareOneSystemPromptAndLearnTheirWorktreeFromTheirTask(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "lead\n"})
	p, srv := testkit.Model(t, isolatedAnswers)
	m := New(Config{SessionID: "s", Provider: p, Model: "test-model", Sink: &sink{}, Workspace: repo, System: "You are a sub-agent.",
		Tools: tools.Core(tools.Workspace{Root: repo}), Gate: testkit.AllowAll(t), Types: spawn.NewRegistry()})
	t.Cleanup(m.Close)
	res := m.SpawnParallel(context.Background(), []Spec{
		{Prompt: "EDIT a.txt one", Description: "edit one", Isolation: spawn.Worktree},
		{Prompt: "EDIT a.txt two", Description: "edit two", Isolation: spawn.Worktree},
	})
	for _, r := range res {
		if r.Status != lifecycle.Completed {
			t.Fatalf("record %+v err %v", r.Record, r.Err)
		}
	}
	firsts := map[string]string{} // first user text → system prompt
	for _, e := range srv.Log() {
		if e.Rule == "edit" {
			firsts[e.Messages[0].Text] = e.System
		}
	}
	if len(firsts) != 2 {
		t.Fatalf("first requests %v, want one per sibling", firsts)
	}
	var systems, trees []string
	for first, system := range firsts {
		i := strings.Index(first, ".atomic/worktrees/")
		if !strings.HasPrefix(first, "Isolation: you work in a git worktree of your own") || i < 0 {
			t.Fatalf("task %q does not name its worktree first", first)
		}
		trees = append(trees, strings.Fields(first[i:])[0])
		systems = append(systems, system)
	}
	if trees[0] == trees[1] {
		t.Errorf("both tasks name %s", trees[0])
	}
	if systems[0] != systems[1] || strings.Contains(systems[0], "worktree") {
		t.Errorf("system prompts differ or name a worktree:\n%s\n---\n%s", systems[0], systems[1])
	}
}
