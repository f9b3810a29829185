package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/mcp/mcptest"
	"github.com/atomic-agent/atomic/internal/tools"
)

// A call that takes progress sends a progressToken, and the server's
// notifications/progress for it reach the call's Progress, in order.
func TestAToolCallSendsAProgressTokenAndTheServersProgressReachesTheCall(t *testing.T) {
	for _, srv := range []mcp.Server{mcptest.Stdio(t, "p"), {Name: "p", Type: mcp.HTTP, URL: mcptest.HTTP(t)}} {
		t.Run(srv.Type, func(t *testing.T) {
			m, set, _ := start(t, srv)
			if slow := m.Ready(context.Background(), 20*time.Second); len(slow) > 0 {
				t.Fatalf("not ready: %v", slow)
			}
			tool, _ := set.Get("mcp__p__steps")
			var mu sync.Mutex
			var got []string
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := tool.Run(ctx, tools.Call{ID: "c1", Input: json.RawMessage(`{"steps":3,"hold_ms":300}`), Progress: func(d event.ToolProgressData) {
				mu.Lock()
				got = append(got, d.Line())
				mu.Unlock()
			}})
			if err != nil || res.Content != "3 steps, token true" {
				t.Fatalf("steps = %+v, %v; want the server to have seen a token", res, err)
			}
			// What comes after the answer is dropped: all came during the call.
			mu.Lock()
			if want := []string{"1/3 · step 1", "2/3 · step 2", "3/3 · step 3"}; !slices.Equal(got, want) {
				t.Errorf("progress = %q, want %q", got, want)
			}
			mu.Unlock()
			// Without a Progress the call asks for none.
			if res := run(t, set, "mcp__p__steps", `{"steps":2}`); res.Content != "2 steps, token false" {
				t.Errorf("without Progress: %+v", res)
			}
		})
	}
}
