package ui

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
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
