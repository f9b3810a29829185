package ui

import (
	tea "charm.land/bubbletea/v2"
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// nestedTaskStart is a task call of sub-agent parent's (the runtime's
// shape: the caller's events carry its own parent, the lead).
func nestedTaskStart(parent, call, agent, desc string) event.Event {
	in, _ := json.Marshal(map[string]string{"description": desc, "prompt": desc, "subagent_type": "general-purpose"})
	e := ev(event.ToolStart, at(1), parent, call, event.ToolStartData{Name: "task", Input: in, SubagentID: agent, SubagentSessionID: "s/" + agent})
	return e
}

// nestedSubStart is the subagent.start of a sub-agent's own sub-agent.
func nestedSubStart(agent, parent, call, desc string) event.Event {
	e := ev(event.SubagentStart, at(1.1), agent, call, event.SubagentStartData{AgentType: "general-purpose", Description: desc, Prompt: desc})
	e.ParentAgentID = parent
	return e
}

func TestGoldenASubagentsOwnSubagentsAreCountedOnItsCollapsedRowAndRenderNestedUnderItExpanded(t *testing.T) {
	m, _, c := newTestModel(t, 90, 24)
	userAsk(m, "Refactor the auth package.")
	feedEvents(m,
		leadText(at(0), "Two parts."),
		taskStart(at(0), "c1", "general-purpose", "Refactor the handlers", ""),
		taskStart(at(0), "c2", "explore", "Find the callers", ""),
		subStart(at(0.1), "general-purpose-1", "c1", "general-purpose", "Refactor the handlers", false),
		subStart(at(0.1), "explore-1", "c2", "explore", "Find the callers", false),
		nestedTaskStart("general-purpose-1", "c3", "general-purpose-2", "Rename Login"),
		nestedTaskStart("general-purpose-1", "c4", "general-purpose-3", "Rename Logout"),
		nestedSubStart("general-purpose-2", "general-purpose-1", "c3", "Rename Login"),
		nestedSubStart("general-purpose-3", "general-purpose-1", "c4", "Rename Logout"),
		subUpdate(at(2), "general-purpose-1", "c1", "task", 2),
		subUpdate(at(3), "general-purpose-2", "c3", "edit auth/login.go", 1),
		subUpdate(at(4), "explore-1", "c2", `grep "Login(" .`, 3),
	)
	c.Set(at(10))
	m.Update(tickMsg(at(10)))
	golden(t, "nested_subagents", live(m))
	m.Update(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	m.Update(tea.WindowSizeMsg{Width: 90, Height: 40})
	golden(t, "nested_subagents_expanded", live(m))
}

func TestNestRowsHangsEachAgentUnderItsParentInTheReducersOrder(t *testing.T) {
	recs := []struct{ id, parent string }{{"a", "lead"}, {"b", "lead"}, {"a1", "a"}, {"a1x", "a1"}, {"a2", "a"}, {"orphan", "gone"}}
	var in []lifecycle.Record
	for _, r := range recs {
		in = append(in, lifecycle.Record{ID: r.id, ParentID: r.parent})
	}
	var got []string
	for _, row := range nestRows(in) {
		got = append(got, row.branch+row.rec.ID)
	}
	want := []string{"├─ a", "│    ├─ a1", "│    │    └─ a1x", "│    └─ a2", "├─ b", "└─ orphan"}
	if len(got) != len(want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// depthThreeModel is a tree three levels deep: the lead's background
// agent waits for its own, which runs a sync agent of its own, and for its
// background shell, beside an Explore agent of the lead that finished.
func depthThreeModel(t *testing.T) *Model {
	m, _, c := newTestModel(t, 90, 30)
	userAsk(m, "Audit the auth package.")
	idle := ev(event.SubagentUpdate, at(3), "general-purpose-1", "c1", event.SubagentUpdateData{Idle: true})
	shell := ev(event.ShellStart, at(2.8), "shell-1", "b1", event.ShellStartData{Command: "go test ./auth/..."})
	shell.ParentAgentID = "general-purpose-1"
	feedEvents(m,
		leadText(at(0), "Two parts."),
		taskStart(at(0), "c1", "general-purpose", "Audit the handlers", "background"),
		taskStart(at(0), "c2", "explore", "Find the callers", ""),
		subStart(at(0.1), "general-purpose-1", "c1", "general-purpose", "Audit the handlers", true),
		subStart(at(0.1), "explore-1", "c2", "explore", "Find the callers", false),
		nestedTaskStart("general-purpose-1", "c3", "general-purpose-2", "Check Login"),
		nestedSubStart("general-purpose-2", "general-purpose-1", "c3", "Check Login"),
		nestedTaskStart("general-purpose-2", "c4", "general-purpose-3", "Read the tokens"),
		nestedSubStart("general-purpose-3", "general-purpose-2", "c4", "Read the tokens"),
		subUpdate(at(2), "general-purpose-2", "c3", "task", 1),
		subUpdate(at(2.5), "general-purpose-3", "c4", "read auth/token.go", 1),
		shell,
		ev(event.ShellOutput, at(2.9), "shell-1", "", event.ShellOutputData{Line: "=== RUN   TestLogin"}),
		idle,
		subUpdate(at(4), "explore-1", "c2", `grep "Login(" .`, 3),
		taskReturn(at(5), "c2", "3 callers", true),
		ev(event.SubagentComplete, at(5), "explore-1", "c2", event.SubagentCompleteData{Success: true, Result: "3 callers"}),
	)
	c.Set(at(10))
	m.Update(tickMsg(at(10)))
	return m
}

func TestGoldenADepthThreeTreeCollapsedCountsWhatItHidesAndExpandedIndentsEachLevelWithTheShell(t *testing.T) {
	m := depthThreeModel(t)
	compact := live(m)
	golden(t, "nested_depth3_compact", compact)
	if !strings.Contains(compact, "Running 4 agents, 1 shell…") || !strings.Contains(compact, "Waiting for the work it started… · +2 agents, 1 shell") {
		t.Fatalf("the header or the waiting agent's collapsed row does not count agents and shells apart:\n%s", compact)
	}
	m.Update(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	m.Update(tea.WindowSizeMsg{Width: 90, Height: 60})
	golden(t, "nested_depth3_expanded", live(m))
}
