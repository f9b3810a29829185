package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/subagent"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestTreeTagsTheRowOfAnAgentIsolatedInAWorktree(t *testing.T) {
	isolated := subStart(at(0), "general-purpose-1", "c1", "general-purpose", "Edit the parser", false)
	d := isolated.Data.(event.SubagentStartData)
	d.Worktree = "/repo/.atomic/worktrees/general-purpose-1"
	isolated.Data = d
	st := stateOf(isolated, subStart(at(0), "general-purpose-2", "c2", "general-purpose", "Edit the lexer", false))
	got := strings.Split(plainTree(st, at(2), false, 120), "\n")
	if len(got) != 5 {
		t.Fatalf("tree:\n%s", strings.Join(got, "\n"))
	}
	if want := "├─ ● general-purpose ⎇ worktree · Edit the parser · 0 tool uses · 2s"; got[1] != want {
		t.Errorf("isolated row\n got %q\nwant %q", got[1], want)
	}
	if strings.Contains(got[3], "worktree") {
		t.Errorf("a row not isolated is tagged: %q", got[3])
	}
}

func TestWorktreesCommandListsMergesAndNamesUnknownIds(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "lead\n"})
	p, _ := testkit.Model(t, `
rules:
  - {name: done, match: {has_tool_results: true}, respond: {text: "edited"}}
  - {name: edit, respond: {tool_calls: [{name: write, input: {file_path: a.txt, content: "agent\n"}}]}}
`)
	mgr := subagent.New(subagent.Config{SessionID: "s", Provider: p, Model: "test-model", Workspace: repo,
		Tools: tools.Core(tools.Workspace{Root: repo}), Gate: testkit.AllowAll(t)})
	t.Cleanup(mgr.Close)
	if r := mgr.SpawnParallel(context.Background(), []subagent.Spec{{Prompt: "edit", Description: "edit a", Isolation: spawn.Worktree}})[0]; r.Status != lifecycle.Completed {
		t.Fatalf("agent: %+v %v", r.Record, r.Err)
	}
	m := New(Config{Backend: &fakeBackend{}, Worktrees: mgr, Now: (&clock{now: t0}).Now})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})

	userAsk(m, "/worktrees")
	if f := frame(m); !strings.Contains(f, "general-purpose-1 · atomic/general-purpose-1 · ready to merge · 1 file changed, 1 insertion(+), 1 deletion(-)") {
		t.Fatalf("/worktrees list:\n%s", f)
	}
	userAsk(m, "/worktrees merge nope-1")
	if f := frame(m); !strings.Contains(f, `unknown task_id "nope-1"; worktrees to merge: general-purpose-1`) {
		t.Fatalf("unknown id:\n%s", f)
	}
	userAsk(m, "/worktrees discard nope-1")
	if f := frame(m); !strings.Contains(f, `unknown task_id "nope-1"; worktrees to discard: general-purpose-1`) {
		t.Fatalf("unknown id to discard:\n%s", f)
	}
	userAsk(m, "/worktrees merge general-purpose-1")
	if f := frame(m); !strings.Contains(f, "Merged branch atomic/general-purpose-1") {
		t.Fatalf("merge:\n%s", f)
	}
	userAsk(m, "/worktrees discard bogus")
	if f := frame(m); !strings.Contains(f, `unknown task_id "bogus": there are no worktrees to discard`) {
		t.Fatalf("discard with none left:\n%s", f)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); string(b) != "agent\n" {
		t.Fatalf("merge did not reach the lead's tree: %q", b)
	}
	if !strings.Contains(helpText, "/worktrees") {
		t.Error("/help does not list /worktrees")
	}
}
