package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/event"
)

// inSandbox is a running sub-agent whose subagent.start carries a
// sandbox mode.
func inSandbox(agent, call, typ, desc, mode string) event.Event {
	return ev(event.SubagentStart, at(0), agent, call, event.SubagentStartData{AgentType: typ, Description: desc, Sandbox: mode})
}

func TestTreeTagsTheRowOfASandboxedAgent(t *testing.T) {
	st := stateOf(
		inSandbox("explore-1", "c1", "explore", "Map the code", "workspace-write"),
		inSandbox("plan-1", "c2", "plan", "Plan the fix", "read-only"),
		subStart(at(0), "general-purpose-1", "c3", "general-purpose", "Unconfined", false),
	)
	lines := renderAgentTree(&st.View, treeView{Now: at(2), Width: 120, Theme: DefaultTheme()})
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
