package native

import (
	"context"
	"testing"

	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/testkit"
)

func TestASessionContinuesAGivenHistoryClosingTheCallsACrashCutOff(t *testing.T) {
	p, _ := testkit.Model(t, `
rules:
  - {name: whole, match: {any_user_contains: "first", last_user_contains: "go on", tool_results_contain_all: ["Atomic exited"]}, respond: {text: "continued"}}
  - {name: lost, respond: {text: "lost"}}
`)
	s := New(Config{ID: "explore-1", Provider: p, History: []provider.Message{
		{Role: provider.RoleUser, Parts: []provider.Part{{Text: "first"}}},
		{Role: provider.RoleAssistant, Parts: []provider.Part{{ToolCall: &provider.ToolCall{ID: "c1", Name: "bash", Input: []byte(`{}`)}}}},
	}})
	res, err := s.Run(context.Background(), "go on")
	if err != nil || res.Text != "continued" {
		t.Fatalf("run: %+v, %v; want an answer from the whole history", res, err)
	}
	h := s.History()
	if len(h) != 5 || h[2].Role != provider.RoleUser || len(h[2].Parts) != 1 ||
		h[2].Parts[0].ToolResult == nil || h[2].Parts[0].ToolResult.ToolCallID != "c1" || !h[2].Parts[0].ToolResult.IsError ||
		h[3].Parts[0].Text != "go on" {
		t.Fatalf("history %+v; want the cut call answered, then the prompt", h)
	}
}
