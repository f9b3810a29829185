package testkit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// CheckParents asserts that each sub-agent of parents (agent id → the id
// of the agent that spawned it) has that one id and that parent from the
// first event that names it on: the task tool.start reserving it comes
// from its parent, every event of its own carries its parent, and the
// reducer fed the events holds exactly the records of parents, each with
// its parent. A sub-agent's sub-agent thus hangs under the sub-agent, never
// under the lead, and never shows up under its task call's id first.
func CheckParents(t testing.TB, events []event.Event, parents map[string]string) {
	t.Helper()
	var st lifecycle.State
	for i, e := range events {
		st.Apply(e)
		if e.Type == event.ToolStart {
			if d, ok := event.Payload[event.ToolStartData](e.Data); ok && strings.EqualFold(d.Name, "task") {
				want, known := parents[d.SubagentID]
				if !known || e.AgentID != want {
					t.Errorf("event %d: task call %s reserves %q from %q; want a known sub-agent from its parent %q",
						i, e.ToolCallID, d.SubagentID, e.AgentID, want)
				}
			}
		}
		if want, ok := parents[e.AgentID]; ok && e.ParentAgentID != want {
			t.Errorf("event %d: %s of %s has parent %q, want %q", i, e.Type, e.AgentID, e.ParentAgentID, want)
		}
		for _, r := range st.Records() {
			if want, ok := parents[r.ID]; !ok || r.ParentID != want {
				t.Fatalf("after event %d (%s of %s): a record %q with parent %q; want only %v", i, e.Type, e.AgentID, r.ID, r.ParentID, parents)
			}
		}
	}
	if st.Len() != len(parents) {
		t.Errorf("%d records, want %d (%v)", st.Len(), len(parents), parents)
	}
}

// CheckNoInitializingAfterTool asserts that once a sub-agent has run a
// tool, its record keeps a current tool (the one under way or the last)
// until its end, and its row never says "Initializing…" again (a
// background row says it runs in the background; its record still keeps
// the tool).
func CheckNoInitializingAfterTool(t testing.TB, events []event.Event) {
	t.Helper()
	var st lifecycle.State
	tooled := map[string]string{} // agent id → its first tool
	for i, e := range events {
		st.Apply(e)
		for _, r := range st.Records() {
			if r.CurrentTool != "" && tooled[r.ID] == "" {
				tooled[r.ID] = r.CurrentTool
			}
			if first := tooled[r.ID]; first != "" && r.Status.Active() && (r.CurrentTool == "" || lifecycle.SubLine(r) == "Initializing…") {
				t.Fatalf("after event %d (%s of %s): %s's current tool cleared (row: %q) after its first tool %q",
					i, e.Type, e.AgentID, r.ID, lifecycle.SubLine(r), first)
			}
		}
	}
	if len(tooled) == 0 {
		t.Fatalf("no sub-agent ever showed a tool: the check checked nothing")
	}
}

// CheckNoForeignIDs asserts that none of ids (a CLI's own ids of its
// sub-agents) appears in the events: what the lead's transcript and the
// TUI show names sub-agents by Atomic's ids.
func CheckNoForeignIDs(t testing.TB, events []event.Event, ids []string) {
	t.Helper()
	if len(ids) == 0 {
		t.Fatalf("no CLI ids to look for: the check checked nothing")
	}
	for i, e := range events {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if strings.Contains(string(b), id) {
				t.Errorf("event %d (%s of %s) shows the CLI's id %s: %.300s", i, e.Type, e.AgentID, id, b)
			}
		}
	}
}
