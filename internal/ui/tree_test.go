package ui

import (
	"image/color"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// testTree is what a tree holds as events go through a bus: the records
// of the agent.status events it delivers.
type testTree struct {
	lifecycle.View
	feed *busFeed
}

// Apply emits e on the tree's bus and keeps the records it reports.
func (t *testTree) Apply(e event.Event) {
	for _, x := range t.feed.through([]event.Event{e}) {
		if r, ok := lifecycle.RecordOf(x); ok {
			t.Put(r)
		}
	}
}

// stateOf is the tree of events gone through a fresh bus.
func stateOf(evs ...event.Event) *testTree {
	t := &testTree{feed: &busFeed{b: bus.New()}}
	t.feed.b.SubscribeWith(func(e event.Event) { t.feed.out = append(t.feed.out, e) }, bus.Options{Inline: true, Records: true})
	for _, e := range withToolStarts(evs) {
		t.Apply(e)
	}
	return t
}

func plainTree(st *testTree, now time.Time, expanded bool, width int) string {
	lines := renderAgentTree(&st.View, treeView{Now: now, Expanded: expanded, Width: width, Theme: DefaultTheme()})
	return ansi.Strip(strings.Join(lines, "\n"))
}

// specRunning is the SPEC §4 example of a compact tree while running.
func specRunning() *testTree {
	return stateOf(
		taskStart(at(0), "c1", "explore", "Find the auth handlers", ""),
		taskStart(at(0), "c2", "general-purpose", "Draft the migration", ""),
		taskStart(at(0), "c3", "general-purpose", "Run the slow test suite", "background"),
		subStart(at(0), "explore-1", "c1", "explore", "Find the auth handlers", false),
		subStart(at(0), "general-purpose-1", "c2", "general-purpose", "Draft the migration", false),
		subStart(at(0), "general-purpose-2", "c3", "general-purpose", "Run the slow test suite", true),
		taskReturn(at(0.1), "c3", "Started background task general-purpose-2", true),
		subUpdate(at(5), "explore-1", "c1", `grep "func.*Auth" internal/`, 4),
		subUpdate(at(6), "general-purpose-2", "c3", "bash go test ./...", 2),
	)
}

func TestTreeMatchesTheSpecExampleWhileRunning(t *testing.T) {
	want := `● Running 3 agents… (ctrl+o to expand)
├─ ● Explore · Find the auth handlers · 4 tool uses · 12s
│    ╰ grep "func.*Auth" internal/
├─ ● general-purpose · Draft the migration · 0 tool uses · 12s
│    ╰ Initializing…
└─ ● general-purpose · Run the slow test suite · 2 tool uses · 12s
     ╰ Running in background…`
	if diff := cmp.Diff(want, plainTree(specRunning(), at(12), false, 120)); diff != "" {
		t.Errorf("running tree (-want +got):\n%s", diff)
	}
}

func TestTreeMatchesTheSpecExampleWhenDone(t *testing.T) {
	st := specRunning()
	seen := map[string]int{}
	for _, r := range st.Records() {
		seen[r.ID] = r.ToolUses
	}
	for _, e := range addToolStarts(seen, []event.Event{
		subUpdate(at(20), "explore-1", "c1", "read auth.go", 9),
		subDone(at(31), "explore-1", "c1", 9, "Found 3 handlers."),
		taskReturn(at(31), "c1", "Found 3 handlers.", true),
		subUpdate(at(30), "general-purpose-1", "c2", "write migration.sql", 6),
		subDone(at(44), "general-purpose-1", "c2", 6, "Drafted."),
		taskReturn(at(44), "c2", "Drafted.", true),
		subUpdate(at(40), "general-purpose-2", "c3", "bash go test ./...", 3),
		subFailed(at(62), "general-purpose-2", "c3", 3, "bash exited 1: 2 tests failed\n--- FAIL: TestA"),
	}) {
		st.Apply(e)
	}
	want := `● 3 agents finished · 1 failed (ctrl+o to expand)
├─ ● Explore · Find the auth handlers · 9 tool uses · 31s
│    ╰ Done
├─ ● general-purpose · Draft the migration · 6 tool uses · 44s
│    ╰ Done
└─ ● general-purpose · Run the slow test suite · 3 tool uses · 1m 02s
     ╰ bash exited 1: 2 tests failed`
	if diff := cmp.Diff(want, plainTree(st, at(500), false, 120)); diff != "" {
		t.Errorf("finished tree (-want +got):\n%s", diff)
	}
}

func TestTreeElapsedTicksWhileActiveAndFreezesWhenDone(t *testing.T) {
	st := stateOf(
		taskStart(at(0), "c1", "explore", "Look around", ""),
		subStart(at(0), "explore-1", "c1", "explore", "Look around", false),
	)
	if got := plainTree(st, at(7), false, 120); !strings.Contains(got, "· 7s") {
		t.Errorf("at 7s the row should say 7s:\n%s", got)
	}
	if got := plainTree(st, at(75), false, 120); !strings.Contains(got, "· 1m 15s") {
		t.Errorf("at 75s the row should say 1m 15s:\n%s", got)
	}
	st.Apply(subDone(at(80), "explore-1", "c1", 2, "ok"))
	if got := plainTree(st, at(500), false, 120); !strings.Contains(got, "· 1m 20s") {
		t.Errorf("a finished row keeps its final duration 1m 20s:\n%s", got)
	}
}

func TestTreeCompactShowsFiveRowsThenMore(t *testing.T) {
	st := eightAgents()
	got := plainTree(st, at(10), false, 120)
	if n := strings.Count(got, "╰"); n != 5 {
		t.Errorf("compact tree shows %d rows, want 5:\n%s", n, got)
	}
	if !strings.HasSuffix(got, "└─ +3 more") {
		t.Errorf("compact tree should end with +3 more:\n%s", got)
	}
	exp := plainTree(st, at(10), true, 120)
	if n := strings.Count(exp, "╰"); n != 8 {
		t.Errorf("expanded tree shows %d rows, want 8:\n%s", n, exp)
	}
	if strings.Contains(exp, "more") || !strings.Contains(exp, "Prompt: Please") {
		t.Errorf("expanded tree shows every row with its prompt:\n%s", exp)
	}
}

func TestTreeExpandedCapsAtTwentyRows(t *testing.T) {
	var evs []event.Event
	for i := range 23 {
		call := "c" + string(rune('a'+i))
		evs = append(evs, taskStart(at(0), call, "explore", "Task "+call, ""))
	}
	got := plainTree(stateOf(evs...), at(1), true, 120)
	if n := strings.Count(got, "╰"); n != 20 {
		t.Errorf("expanded tree shows %d rows, want 20", n)
	}
	if !strings.HasSuffix(got, "└─ +3 more") {
		t.Errorf("expanded tree should end with +3 more:\n%s", got)
	}
}

func TestTreeRowsFitTheWidth(t *testing.T) {
	for _, line := range renderAgentTree(&specRunning().View, treeView{Now: at(12), Width: 30, Theme: DefaultTheme()}) {
		if w := ansi.StringWidth(line); w > 30 {
			t.Errorf("line %q is %d cells wide, want at most 30", ansi.Strip(line), w)
		}
	}
}

func TestStatusColours(t *testing.T) {
	th := DefaultTheme()
	for _, tc := range []struct {
		status lifecycle.Status
		want   color.Color
	}{
		{lifecycle.Pending, th.Muted},
		{lifecycle.Running, th.Muted},
		{lifecycle.Background, th.Muted},
		{lifecycle.Completed, th.Success},
		{lifecycle.Interrupted, th.Warning},
		{lifecycle.Error, th.Danger},
	} {
		if got := th.StatusStyle(tc.status).GetForeground(); got != tc.want {
			t.Errorf("%s dot colour = %v, want %v", tc.status, got, tc.want)
		}
	}
}

// sgr is the escape sequence lipgloss emits for a foreground colour.
func sgr(c color.Color) string {
	return strings.TrimSuffix(th0().fg(c).Render("x"), "x\x1b[m")
}

func th0() Theme { return DefaultTheme() }

func TestActiveAgentDotsNeverUseAFinishedColour(t *testing.T) {
	th := DefaultTheme()
	lines := renderAgentTree(&specRunning().View, treeView{Now: at(12), Width: 120, Theme: th})
	if !strings.HasPrefix(lines[0], sgr(th.Accent)) {
		t.Errorf("header of an active tree should be in the accent colour: %q", lines[0])
	}
	for _, row := range []string{lines[1], lines[3], lines[5]} {
		if !strings.Contains(row, sgr(th.Muted)+dot) {
			t.Errorf("active row dot should be muted grey: %q", row)
		}
		for _, c := range []color.Color{th.Success, th.Warning, th.Danger} {
			if strings.Contains(row, sgr(c)+dot) {
				t.Errorf("active row dot uses a finished colour: %q", row)
			}
		}
	}
}

func TestFinishedAgentDotsUseTheirStatusColour(t *testing.T) {
	th := DefaultTheme()
	st := stateOf(
		taskStart(at(0), "c1", "explore", "One", ""),
		taskStart(at(0), "c2", "explore", "Two", ""),
		taskStart(at(0), "c3", "explore", "Three", ""),
		taskReturn(at(3), "c1", "fine", true),
		taskReturn(at(4), "c2", "boom", false),
		interrupt(at(5)),
	)
	lines := renderAgentTree(&st.View, treeView{Now: at(12), Width: 120, Theme: th})
	want := map[int]color.Color{1: th.Success, 3: th.Warning, 5: th.Danger}
	for i, c := range want {
		if !strings.Contains(lines[i], sgr(c)+dot) {
			t.Errorf("row %q should have a %v dot", ansi.Strip(lines[i]), c)
		}
	}
	if strings.HasPrefix(lines[0], sgr(th.Accent)) {
		t.Errorf("a finished tree's header is not in the accent colour: %q", lines[0])
	}
}

func eightAgents() *testTree {
	descs := []string{"Map the packages", "Find the CLI flags", "Read the spec", "List the tests",
		"Find TODO comments", "Check the licences", "Find the config loader", "Survey the docs"}
	var evs []event.Event
	for i, d := range descs {
		call := "c" + string(rune('1'+i))
		id := "explore-" + string(rune('1'+i))
		evs = append(evs, taskStart(at(0), call, "explore", d, ""), subStart(at(0), id, call, "explore", d, false))
		if i%2 == 0 {
			evs = append(evs, subUpdate(at(float64(i)), id, call, "glob **/*.go", i+1))
		}
	}
	return stateOf(evs...)
}

// onBackend is subStart for an agent that runs on backend.
func onBackend(t time.Time, agent, call, typ, desc, backend string) event.Event {
	e := subStart(t, agent, call, typ, desc, false)
	d := e.Data.(event.SubagentStartData)
	d.Backend = backend
	e.Data = d
	return e
}

func TestTreeNamesEachRowsBackendOnlyWhenTheTreeMixesBackends(t *testing.T) {
	mixedTree := stateOf(
		onBackend(at(0), "reviewer-1", "c1", "reviewer", "Review the diff", "claude-code"),
		onBackend(at(0), "fixer-1", "c2", "fixer", "Fix the tests", "codex"),
		onBackend(at(0), "general-purpose-1", "c3", "general-purpose", "Update the docs", "native"),
	)
	tree := func(st *testTree, lead string) string {
		lines := renderAgentTree(&st.View, treeView{Now: at(3), Width: 120, Theme: DefaultTheme(), Backends: mixed(&st.View, lead)})
		return ansi.Strip(strings.Join(lines, "\n"))
	}
	want := `● Running 3 agents… (ctrl+o to expand)
├─ ● reviewer [claude-code] · Review the diff · 0 tool uses · 3s
│    ╰ Initializing…
├─ ● fixer [codex] · Fix the tests · 0 tool uses · 3s
│    ╰ Initializing…
└─ ● general-purpose [native] · Update the docs · 0 tool uses · 3s
     ╰ Initializing…`
	if diff := cmp.Diff(want, tree(mixedTree, "native")); diff != "" {
		t.Errorf("mixed tree under a native lead (-want +got):\n%s", diff)
	}
	// A Claude Code lead whose sub-agents all run in Claude Code: one
	// backend, nothing to tell apart.
	one := stateOf(
		onBackend(at(0), "general-purpose-1", "c1", "general-purpose", "Subtask alpha", "claude-code"),
		onBackend(at(0), "general-purpose-2", "c2", "general-purpose", "Subtask beta", "claude-code"),
	)
	if got := tree(one, "claude-code"); strings.Contains(got, "[") {
		t.Errorf("a tree on one backend names it:\n%s", got)
	}
	// A native lead with native sub-agents: no tags either.
	if got := tree(specRunning(), ""); strings.Contains(got, "[") {
		t.Errorf("a native tree names its backend:\n%s", got)
	}
}

func TestTheLeadsBackendComesFromItsSessionStart(t *testing.T) {
	for provider, want := range map[string]string{"claude-code": "claude-code", "codex": "codex", "anthropic": "native", "openai": "native", "": "native"} {
		if got := backendOf(provider); got != want {
			t.Errorf("backendOf(%q) = %q, want %q", provider, got, want)
		}
	}
}

func TestARemoteAgentsRowNamesItsWorkerAndSaysItWasRestarted(t *testing.T) {
	start := subStart(at(0), "general-purpose-1", "c1", "general-purpose", "Do it", false)
	d := start.Data.(event.SubagentStartData)
	d.Worker = "worker-a"
	start.Data = d
	st := stateOf(start, event.Event{Type: event.SubagentUpdate, Time: at(1), AgentID: "general-purpose-1",
		Data: event.SubagentUpdateData{Worker: "worker-b", Note: "restarted on worker-b"}})
	lines := renderAgentTree(&st.View, treeView{Now: at(3), Width: 120, Theme: DefaultTheme()})
	want := `● Running 1 general-purpose agent… (ctrl+o to expand)
└─ ● general-purpose @worker-b · Do it · 0 tool uses · 3s
     ╰ restarted on worker-b`
	if diff := cmp.Diff(want, ansi.Strip(strings.Join(lines, "\n"))); diff != "" {
		t.Errorf("remote agent's row (-want +got):\n%s", diff)
	}
}
