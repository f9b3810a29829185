package subagent

import (
	"context"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
)

func TestSubagentStartCarriesTheSandboxOfNativeAgentsOnly(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	m, _, rec := mixedManager(t, p, elsewhere(p, &opened{}, nil))
	m.cfg.Sandbox = "workspace-write" // as runtime.Open sets it, before any spawn
	for i, typ := range []string{"general-purpose", "outsider"} {
		task, err := m.Spawn(context.Background(), Spec{ToolCallID: "call-" + typ, ParentID: "lead", Description: "d", Prompt: "p", Type: typ})
		if err != nil {
			t.Fatal(i, err)
		}
		m.Wait(context.Background(), task)
	}
	got := map[string]string{}
	for _, e := range rec.events() {
		if e.Type == event.SubagentStart {
			got[e.AgentID] = e.Data.(event.SubagentStartData).Sandbox
		}
	}
	want := map[string]string{"general-purpose-1": "workspace-write", "outsider-1": ""}
	for id, mode := range want {
		if m, ok := got[id]; !ok || m != mode {
			t.Errorf("subagent.start of %s: sandbox %q (seen %v), want %q", id, m, ok, mode)
		}
	}
}
