package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Golden frames of the whole chat screen for the tree states SPEC §4
// names. Run `go test ./internal/ui -run Golden -update` to rewrite them.

func TestGoldenThreeRunningExploreAgents(t *testing.T) {
	m, _, c := newTestModel(t, 90, 20)
	userAsk(m, "Where is authentication handled?")
	feedEvents(m,
		leadText(at(0), "I'll search with three Explore agents in parallel."),
		taskStart(at(0), "c1", "explore", "Find the auth handlers", ""),
		taskStart(at(0), "c2", "explore", "Find the session store", ""),
		taskStart(at(0), "c3", "explore", "Find the login routes", ""),
		subStart(at(0.1), "explore-1", "c1", "explore", "Find the auth handlers", false),
		subStart(at(0.1), "explore-2", "c2", "explore", "Find the session store", false),
		subStart(at(0.1), "explore-3", "c3", "explore", "Find the login routes", false),
		subUpdate(at(2), "explore-1", "c1", `grep "func.*Auth" internal/`, 4),
	)
	c.Set(at(12))
	m.Update(tickMsg(at(12)))
	golden(t, "three_running_explore", live(m))
}

func TestGoldenMixedSyncAndBackgroundWithOneFinished(t *testing.T) {
	m, _, c := newTestModel(t, 90, 20)
	userAsk(m, "Migrate the sessions table and run the slow tests.")
	feedEvents(m,
		leadText(at(0), "Splitting this up."),
		taskStart(at(0), "c1", "explore", "Find the auth handlers", ""),
		taskStart(at(0), "c2", "general-purpose", "Draft the migration", ""),
		taskStart(at(0), "c3", "general-purpose", "Run the slow test suite", "background"),
		subStart(at(0), "explore-1", "c1", "explore", "Find the auth handlers", false),
		subStart(at(0), "general-purpose-1", "c2", "general-purpose", "Draft the migration", false),
		subStart(at(0), "general-purpose-2", "c3", "general-purpose", "Run the slow test suite", true),
		taskReturn(at(0.1), "c3", "Started background task general-purpose-2", true),
		subUpdate(at(3), "explore-1", "c1", `grep "func.*Auth" internal/`, 4),
		subUpdate(at(4), "general-purpose-2", "c3", "bash go test ./...", 2),
		subUpdate(at(5), "general-purpose-1", "c2", "write migrations/002.sql", 3),
		subDone(at(9), "general-purpose-1", "c2", 3, "Drafted migrations/002.sql."),
		taskReturn(at(9), "c2", "Drafted migrations/002.sql.", true),
	)
	c.Set(at(12))
	m.Update(tickMsg(at(12)))
	golden(t, "mixed_one_finished", live(m))
}

func TestGoldenAllFinished(t *testing.T) {
	m, _, c := newTestModel(t, 90, 20)
	userAsk(m, "Survey the repository.")
	feedEvents(m,
		leadText(at(0), "Four explorers, one area each."),
		taskStart(at(0), "c1", "explore", "Map the packages", ""),
		taskStart(at(0), "c2", "explore", "Read the spec", ""),
		taskStart(at(0), "c3", "explore", "List the tests", ""),
		taskStart(at(0), "c4", "explore", "Survey the docs", ""),
		subStart(at(0), "explore-1", "c1", "explore", "Map the packages", false),
		subStart(at(0), "explore-2", "c2", "explore", "Read the spec", false),
		subStart(at(0), "explore-3", "c3", "explore", "List the tests", false),
		subStart(at(0), "explore-4", "c4", "explore", "Survey the docs", false),
		subDone(at(14), "explore-1", "c1", 7, "12 packages."), taskReturn(at(14), "c1", "12 packages.", true),
		subDone(at(21), "explore-2", "c2", 3, "Read it."), taskReturn(at(21), "c2", "Read it.", true),
		subDone(at(33), "explore-3", "c3", 11, "140 tests."), taskReturn(at(33), "c3", "140 tests.", true),
		subDone(at(65), "explore-4", "c4", 5, "Docs are thin."), taskReturn(at(65), "c4", "Docs are thin.", true),
		ev(event.MessageDelta, at(66), event.LeadID, "", event.MessageDeltaData{Text: "The repository has **12 packages** and 140 tests."}),
		ev(event.MessageComplete, at(66), event.LeadID, "", event.MessageCompleteData{Text: "The repository has **12 packages** and 140 tests.", StopReason: "end_turn"}),
		ev(event.TurnEnd, at(66), event.LeadID, "", event.TurnEndData{StopReason: "end_turn", NumTurns: 2}),
		ev(event.Complete, at(66), event.LeadID, "", event.CompleteData{Result: "The repository has **12 packages** and 140 tests.", NumTurns: 2}),
	)
	c.Set(at(300))
	m.Update(tickMsg(at(300)))
	golden(t, "all_finished", live(m))
}

func TestGoldenOneInterruptedOneFailed(t *testing.T) {
	m, _, c := newTestModel(t, 90, 20)
	userAsk(m, "Fix the flaky test and check the build.")
	feedEvents(m,
		leadText(at(0), "Two agents."),
		taskStart(at(0), "c1", "general-purpose", "Fix the flaky test", ""),
		taskStart(at(0), "c2", "general-purpose", "Check the build", "background"),
		subStart(at(0), "general-purpose-1", "c1", "general-purpose", "Fix the flaky test", false),
		subStart(at(0), "general-purpose-2", "c2", "general-purpose", "Check the build", true),
		taskReturn(at(0.1), "c2", "Started background task general-purpose-2", true),
		subUpdate(at(2), "general-purpose-2", "c2", "bash go build ./...", 1),
		subFailed(at(8), "general-purpose-2", "c2", 1, "bash exited 2: undefined: frob"),
		subUpdate(at(3), "general-purpose-1", "c1", "bash go test -run TestFlaky", 2),
		interrupt(at(15)),
		ev(event.TurnEnd, at(15), event.LeadID, "", event.TurnEndData{StopReason: "interrupted"}),
		ev(event.Complete, at(15), event.LeadID, "", event.CompleteData{IsError: true, Error: "interrupted"}),
	)
	c.Set(at(40))
	m.Update(tickMsg(at(40)))
	golden(t, "interrupted_and_failed", live(m))
}

func eightAgentModel(t *testing.T) *Model {
	m, _, c := newTestModel(t, 90, 30)
	userAsk(m, "Audit everything.")
	evs := []event.Event{leadText(at(0), "Eight explorers.")}
	descs := []string{"Map the packages", "Find the CLI flags", "Read the spec", "List the tests",
		"Find TODO comments", "Check the licences", "Find the config loader", "Survey the docs"}
	for i, d := range descs {
		call := "c" + string(rune('1'+i))
		id := "explore-" + string(rune('1'+i))
		evs = append(evs, taskStart(at(0), call, "explore", d, ""), subStart(at(0), id, call, "explore", d, false))
		if i < 3 {
			evs = append(evs, subDone(at(float64(5+i)), id, call, 2, "Result of "+d+"."), taskReturn(at(float64(5+i)), call, "Result of "+d+".", true))
		} else {
			evs = append(evs, subUpdate(at(float64(i)), id, call, "glob **/*.go", i))
		}
	}
	feedEvents(m, evs...)
	c.Set(at(20))
	m.Update(tickMsg(at(20)))
	return m
}

func TestGoldenCompactEightAgents(t *testing.T) {
	golden(t, "compact_eight", live(eightAgentModel(t)))
}

func TestGoldenExpandedEightAgents(t *testing.T) {
	m := eightAgentModel(t)
	m.Update(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	m.Update(tea.WindowSizeMsg{Width: 90, Height: 80})
	golden(t, "expanded_eight", live(m))
}

func TestGoldenApprovalFromSubagent(t *testing.T) {
	dir := t.TempDir()
	ws := tools.Workspace{Root: dir}
	writeFile(t, dir, "config.go", "package config\n\nconst Port = 8080\n")
	set := tools.Core(ws)
	q := NewApprovals(ToolDiffer(set))
	b := &fakeBackend{}
	c := &clock{now: t0}
	m := New(Config{Backend: b, Approvals: q, Now: c.Now})
	m.Update(tea.WindowSizeMsg{Width: 90, Height: 24})
	userAsk(m, "Change the port.")
	feedEvents(m,
		leadText(at(0), "Delegating."),
		taskStart(at(0), "c1", "general-purpose", "Change the port", ""),
		subStart(at(0), "general-purpose-1", "c1", "general-purpose", "Change the port", false),
		subUpdate(at(2), "general-purpose-1", "c1", "edit config.go", 2),
		ev(event.PermissionRequested, at(2), "general-purpose-1", "c1-edit", event.PermissionRequestedData{RequestID: "perm-1", Tool: "edit", Subject: "config.go"}),
		subUpdate(at(3), "general-purpose-1", "c1", "edit config.go", 2), // progress does not wipe the wait
	)
	in, _ := json.Marshal(map[string]string{"file_path": "config.go", "old_string": "8080", "new_string": "9090"})
	req := permission.Request{ID: "perm-1", AgentID: "general-purpose-1", AgentName: "general-purpose-1",
		Tool: "edit", Kind: tools.Edit, Subject: "config.go", Input: in}
	done := make(chan permission.Answer)
	go func() {
		a, _ := q.Ask(context.Background(), req)
		done <- a
	}()
	waitFor(t, func() bool { return q.Len() == 1 })
	c.Set(at(5))
	m.Update(eventsMsg{Approvals: true})
	golden(t, "approval_subagent", live(m))
	m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	if a := <-done; a != permission.AllowOnce {
		t.Errorf("y answered %v, want AllowOnce", a)
	}
}

func TestGoldenBackgroundCompletionNotification(t *testing.T) {
	m, _, c := newTestModel(t, 90, 18)
	userAsk(m, "Explore the repo in the background.")
	feedEvents(m,
		leadText(at(0), "Started it in the background; ask me anything meanwhile."),
		taskStart(at(0), "c1", "explore", "Survey the repository", "background"),
		subStart(at(0), "explore-1", "c1", "explore", "Survey the repository", true),
		taskReturn(at(0.1), "c1", "Started background task explore-1", true),
		ev(event.TurnEnd, at(1), event.LeadID, "", event.TurnEndData{StopReason: "end_turn"}),
		subUpdate(at(10), "explore-1", "c1", "read README.md", 6),
		subDone(at(34), "explore-1", "c1", 8, "A Go module with 12 packages."),
		ev(event.Complete, at(34), event.LeadID, "", event.CompleteData{Result: "Started it in the background; ask me anything meanwhile."}),
	)
	c.Set(at(35))
	m.Update(tickMsg(at(35)))
	golden(t, "background_notification", live(m))
}

// waitFor polls cond for up to 5s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestGoldenEachNativeAgentsRowShowsItsContextUse(t *testing.T) {
	m, _, c := newTestModel(t, 100, 20)
	userAsk(m, "Read the whole module.")
	feedEvents(m,
		taskStart(at(0), "c1", "explore", "Read internal/", ""),
		taskStart(at(0), "c2", "explore", "Read cmd/", ""),
		taskStart(at(0), "c3", "explore", "Read docs/", ""),
		subStart(at(0.1), "explore-1", "c1", "explore", "Read internal/", false),
		subStart(at(0.1), "explore-2", "c2", "explore", "Read cmd/", false),
		subStart(at(0.1), "explore-3", "c3", "explore", "Read docs/", false),
		subUpdate(at(2), "explore-1", "c1", "read internal/a.go", 3),
		// Of a known window, of an unknown one; explore-3 has not answered.
		ev(event.UsageUpdate, at(2), "explore-1", "", event.UsageUpdateData{Usage: event.Usage{InputTokens: 84_000, ContextWindow: 200_000}, Delta: true, Context: 84_200}),
		ev(event.UsageUpdate, at(3), "explore-2", "", event.UsageUpdateData{Usage: event.Usage{InputTokens: 12_000}, Delta: true, Context: 12_300}),
		// A compaction lowers explore-1's figure, its window kept.
		ev(event.ContextCompact, at(4), "explore-1", "", event.ContextCompactData{Before: 84_200, After: 20_000, Trigger: event.CompactAuto, Summarised: 9}),
	)
	c.Set(at(6))
	m.Update(tickMsg(at(6)))
	golden(t, "context_per_agent", live(m))
}

// An MCP tool of the lead that reports progress shows the latest report
// on its running line, as a sub-agent's row does; the result replaces it.
func TestGoldenTheLeadsRunningToolLineShowsItsLatestMCPProgress(t *testing.T) {
	m, _, _ := newTestModel(t, 90, 12)
	userAsk(m, "Index the docs.")
	progress := func(s float64, msg string) event.Event {
		return ev(event.ToolProgress, at(1+s), event.LeadID, "m1", event.ToolProgressData{Name: "mcp__docs__index", Progress: s, Total: 10, Message: msg})
	}
	feedEvents(m,
		ev(event.ToolStart, at(0.5), event.LeadID, "m1", event.ToolStartData{Name: "mcp__docs__index"}),
		progress(3, "indexing api/"),
		progress(7, "indexing guides/"),
	)
	golden(t, "lead_tool_progress", frame(m))
	feedEvents(m, ev(event.ToolComplete, at(9), event.LeadID, "m1", event.ToolCompleteData{Name: "mcp__docs__index", Success: true, Result: "42 pages indexed"}))
	if f := frame(m); strings.Contains(f, "indexing") || !strings.Contains(f, "42 pages indexed") {
		t.Errorf("after the result the line still shows progress, or not the result:\n%s", f)
	}
}
