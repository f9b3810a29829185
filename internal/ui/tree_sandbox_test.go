package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/event"
)

// inSandbox is subStart with the sandbox mode subagent.start carries.
func inSandbox(e event.Event, mode string) event.Event {
	d := e.Data.(event.SubagentStartData)
	d.Sandbox = mode
	e.Data = d
	return e
}

func TestTreeTagsTheRowOfASandboxedAgent(t *testing.T) {
	st := stateOf(
		inSandbox(subStart(at(0), "explore-1", "c1", "explore", "Map the code", false), "workspace-write"),
		inSandbox(subStart(at(0), "plan-1", "c2", "plan", "Plan the fix", false), "read-only"),
		subStart(at(0), "general-purpose-1", "c3", "general-purpose", "Unconfined", false),
	)
	lines := renderAgentTree(st, treeView{Now: at(2), Width: 120, Theme: DefaultTheme()})
	want := `● Running 3 agents… (ctrl+o to expand)
├─ ● Explore [sandbox] · Map the code · 0 tool uses · 2s
│    ╰ Initializing…
├─ ● plan [ro] · Plan the fix · 0 tool uses · 2s
│    ╰ Initializing…
└─ ● general-purpose · Unconfined · 0 tool uses · 2s
     ╰ Initializing…`
	if diff := cmp.Diff(want, ansi.Strip(strings.Join(lines, "\n"))); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
}
