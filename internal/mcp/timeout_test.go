package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/mcp/mcptest"
	"github.com/atomic-agent/atomic/internal/tools"
)

// A tools/call the server never answers ends at the tool timeout as the
// tool's error naming the server, the tool, the timeout and how to raise
// it; the server still answers the next call.
func TestAToolCallThatNeverAnswersEndsAtTheToolTimeoutAsTheToolsError(t *testing.T) {
	for _, srv := range []mcp.Server{mcptest.Stdio(t, "slow"), {Name: "slow", Type: mcp.HTTP, URL: mcptest.HTTP(t)}} {
		t.Run(srv.Type, func(t *testing.T) {
			w := &mcptest.Warnings{}
			m := mcp.Start(context.Background(), []mcp.Server{srv},
				mcp.Options{Warn: w.Add, HandshakeTimeout: 20 * time.Second, ToolTimeout: 300 * time.Millisecond})
			t.Cleanup(m.Close)
			set := tools.NewSet()
			m.AddTo(set)
			if slow := m.Ready(context.Background(), 20*time.Second); len(slow) > 0 {
				t.Fatalf("not ready: %v", slow)
			}
			hang, ok := set.Get("mcp__slow__hang")
			if !ok {
				t.Fatalf("no hang tool: %v", set.Names())
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			begin := time.Now()
			res := tools.Execute(ctx, hang, tools.Call{ID: "c1", Input: json.RawMessage(`{}`)})
			took := time.Since(begin)
			if took > 5*time.Second {
				t.Errorf("the call took %v with a 300ms tool timeout", took)
			}
			for _, want := range []string{"mcp server slow: tool hang did not answer within 300ms", "MCP_TOOL_TIMEOUT", "mcp_tool_timeout"} {
				if !res.IsError || !strings.Contains(res.Content, want) {
					t.Errorf("result %+v, want an error containing %q", res, want)
				}
			}
			if res := run(t, set, "mcp__slow__echo", `{"text":"after"}`); res.Content != "echo: after" {
				t.Errorf("echo after the timeout = %+v", res)
			}
		})
	}
}

// A call the run itself cancels is not reported as a timeout.
func TestACallCancelledByTheRunIsNotReportedAsATimeout(t *testing.T) {
	m := mcp.Start(context.Background(), []mcp.Server{mcptest.Stdio(t, "s")}, mcp.Options{HandshakeTimeout: 20 * time.Second, ToolTimeout: time.Minute})
	t.Cleanup(m.Close)
	set := tools.NewSet()
	m.AddTo(set)
	m.Ready(context.Background(), 20*time.Second)
	hang, _ := set.Get("mcp__s__hang")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := hang.Run(ctx, tools.Call{ID: "c1", Input: json.RawMessage(`{}`)})
	if err == nil || strings.Contains(err.Error(), "did not answer within") {
		t.Errorf("err = %v, want the run's cancellation", err)
	}
}
