package subagent

import (
	"context"
	"testing"

	"github.com/atomic-agent/atomic/internal/agenttype"
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestSubagentStartCarriesTheSandboxOfNativeAgentsOnly(t *testing.T) {
	p, _ := testkit.Model(t, answers)
	b := bus.New()
	rec := &sink{}
	t.Cleanup(b.Subscribe(rec.Emit))
	types := agenttype.NewRegistry(agenttype.Type{Name: "outsider", Description: "runs elsewhere", Backend: "elsewhere",
		Prompt: "OUTSIDER", Source: "outsider.md"})
	m := New(Config{SessionID: "s", Provider: p, Model: "m", Types: types, Sink: b, Tools: tools.NewSet(),
		Workspace: "/work/space", Backends: elsewhere(p, &opened{}, nil), Sandbox: "workspace-write"})
	t.Cleanup(m.Close)
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
