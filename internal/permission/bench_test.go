package permission

import (
	"testing"
)

// benchLine is a realistic 200-character bash call: tests, a pipe, git
// and a substitution, as a model writes them.
const benchLine = `go test -race -run 'TestBash|TestGate' ./internal/permission/... 2>&1 | grep -v '^ok' | head -n 40; git status --short && git diff --stat -- '*.go' | tail -3 && echo "done: $(date +%s) ${HOME:-/tmp}"`

// BenchmarkGateBashCall is the gate's cost per bash call (budget: under
// 1 ms for a 200-character line; scripts/bench.sh prints it).
func BenchmarkGateBashCall(b *testing.B) {
	if n := len(benchLine); n < 190 || n > 210 {
		b.Fatalf("the line is %d characters, want about 200", n)
	}
	g, err := NewGate(Options{Mode: Default,
		Allowed:    []string{"bash(go test:*)", "bash(grep:*)", "bash(head:*)", "bash(git status:*)", "bash(git diff:*)", "bash(tail:*)", "bash(echo:*)", "bash(date:*)"},
		Disallowed: []string{"bash(rm:*)", "bash(curl:*)", "bash(git push:*)"}})
	if err != nil {
		b.Fatal(err)
	}
	req := bashReq(benchLine)
	if d, decided := g.Check(req); !decided || !d.Allow {
		b.Fatalf("the line is not allowed by its rules: %s", d.Reason)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		g.Check(req)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/call")
}
