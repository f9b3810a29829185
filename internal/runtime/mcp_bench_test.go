package runtime

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/mcp/mcptest"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// BenchmarkMCPStartCost measures what three stdio MCP servers cost the
// start of a run: back-to-back pairs of runs, one with no server and one
// with three, each from starting the servers and the runtime to the model
// receiving the lead's first request. The budget: the added time is no
// more than the slowest server's own handshake (connect and list tools)
// plus 5ms; ms-added-over-handshake is that excess, the median of the
// pairs.
func BenchmarkMCPStartCost(b *testing.B) {
	const scenario = `
rules:
  - {name: answer, respond: {text: "ok"}}
`
	p, srv := testkit.Model(b, scenario)
	gate, _ := permission.NewGate(permission.Options{Mode: permission.BypassPermissions})
	var three []mcp.Server
	for i := range 3 {
		three = append(three, mcptest.Stdio(b, fmt.Sprintf("s%d", i)))
	}
	var none, with, slowest, excess []float64
	for b.Loop() {
		n, _ := startToFirstRequest(b, p, srv, gate, nil)
		w, hs := startToFirstRequest(b, p, srv, gate, three)
		none, with, slowest = append(none, ms(n)), append(with, ms(w)), append(slowest, ms(hs))
		excess = append(excess, ms(w-n-hs))
	}
	b.ReportMetric(median(none), "ms-to-first-request-none")
	b.ReportMetric(median(with), "ms-to-first-request-3-stdio")
	b.ReportMetric(median(slowest), "ms-slowest-handshake")
	b.ReportMetric(median(excess), "ms-added-over-handshake")
}

// startToFirstRequest runs one prompt with servers and returns the time
// to the model's first request and the slowest server's handshake.
func startToFirstRequest(b *testing.B, p provider.Provider, srv *loopback.Server, gate *permission.Gate, servers []mcp.Server) (time.Duration, time.Duration) {
	seen := len(srv.Log())
	begin := time.Now()
	m := mcp.Start(context.Background(), servers, mcp.Options{})
	rt := New(Config{Provider: p, Gate: gate, Workspace: tools.Workspace{Root: b.TempDir()}, MCP: m})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { rt.Serve(ctx); close(done) }()
	rt.Submit("hi")
	<-rt.Completed()
	first := srv.Log()[seen].Start.Sub(begin)
	var slowest time.Duration
	for _, st := range m.Statuses() {
		if st.State != mcp.Ready {
			b.Fatalf("server %s %s: %s", st.Name, st.State, st.Err)
		}
		slowest = max(slowest, st.Handshake)
	}
	cancel()
	<-done
	rt.Close()
	return first, slowest
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return s[len(s)/2]
}
