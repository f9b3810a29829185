package subagent

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

const reviewerChain = `
rules:
  - {name: leaf, match: {first_user_contains: L2}, respond: {text: "leaf done"}}
  - {name: reviewer-report, match: {first_user_contains: L1, has_tool_results: true}, respond: {text: "reviewed: leaf done"}}
  - {name: reviewer, match: {first_user_contains: L1}, respond: {tool_calls: [{name: task, input: {description: "leaf", prompt: "L2"}}]}}
`

func TestACustomTypeListingTaskGetsOnlyItsToolsAndNestsWithinTheDepthLimit(t *testing.T) {
	p, srv := testkit.Model(t, reviewerChain)
	types := spawn.NewRegistry(spawn.Type{Name: "reviewer", Description: "reviews", Source: "test", Tools: []string{"read", "task"}})
	m := New(Config{SessionID: "s", Provider: p, Model: "test-model", Sink: &sink{}, MaxDepth: 2, Types: types,
		Tools: tools.Core(tools.Workspace{Root: t.TempDir()})})
	t.Cleanup(m.Close)
	top, err := m.Spawn(context.Background(), Spec{ToolCallID: "c1", ParentID: event.LeadID, Type: "reviewer", Prompt: "L1", Description: "review"})
	if err != nil {
		t.Fatalf("a type listing task does not spawn: %v", err)
	}
	waitDone(t, top, 20*time.Second)
	if r := m.Record(top); r.Status != lifecycle.Completed || r.Result != "reviewed: leaf done" {
		t.Fatalf("reviewer: %s %q %q", r.Status, r.Result, r.Error)
	}
	offered := loopback.ByRule(srv.Log(), "reviewer")[0].Tools
	if !slices.Contains(offered, "task") || !slices.Contains(offered, "read") || slices.Contains(offered, "bash") {
		t.Fatalf("the reviewer was offered %v, want its own read and task, no bash", offered)
	}
}
