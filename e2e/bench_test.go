//go:build unix

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runMeasured runs the binary once and returns its wall time and peak RSS.
func runMeasured(b *testing.B, srvScenario string, args ...string) (wall time.Duration, rssMB float64, firstReq time.Duration) {
	b.Helper()
	srv := server(b, srvScenario)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := command(b, ctx, srv, "anthropic", b.TempDir(), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("atomic: %v: %s", err, errb.String())
	}
	wall = time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	log := srv.Log()
	if len(log) > 0 {
		firstReq = log[0].Start.Sub(start)
	}
	return wall, float64(ru.Maxrss) / 1024, firstReq
}

// BenchmarkStartToFirstRequest: process start to the first model request
// on loopback. Budget: under 30 ms.
func BenchmarkStartToFirstRequest(b *testing.B) {
	var total time.Duration
	for i := 0; i < b.N; i++ {
		_, _, first := runMeasured(b, "rules: [{respond: {text: hi}}]", "-p", "hi")
		total += first
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-first-request")
}

// BenchmarkHeadlessPeakRSS: peak memory of a plain headless run. Budget:
// under 40 MB.
func BenchmarkHeadlessPeakRSS(b *testing.B) {
	peak := 0.0
	for i := 0; i < b.N; i++ {
		_, rss, _ := runMeasured(b, "rules: [{respond: {text: hi}}]", "-p", "hi")
		peak = max(peak, rss)
	}
	b.ReportMetric(peak, "MB-peak-RSS")
}

func fanOutScenario(n int, delayMS int) string {
	var calls strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&calls, "        - {name: task, input: {description: \"task %d\", prompt: \"TASK-%d\"}}\n", i, i)
	}
	return fmt.Sprintf(`
rules:
  - {name: final, match: {tools_include: [task], has_tool_results: true}, respond: {text: "done"}}
  - name: fanout
    match: {tools_include: [task]}
    respond:
      tool_calls:
%s  - {name: sub, respond: {text: "ok", delay_ms: %d}}
`, calls.String(), delayMS)
}

// BenchmarkFanOut3x2s: 3 sub-agents each answering after 2 s, whole
// headless run. Budget: under 2.2 s wall.
func BenchmarkFanOut3x2s(b *testing.B) {
	var total time.Duration
	for i := 0; i < b.N; i++ {
		wall, _, _ := runMeasured(b, fanOutScenario(3, 2000), "-p", "go")
		total += wall
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s-wall")
}

// Benchmark100Subagents: 100 sub-agents at cap 100, each answering after
// 1 s. Budget: under 2 s wall and 150 MB peak RSS.
func Benchmark100Subagents(b *testing.B) {
	var total time.Duration
	peak := 0.0
	for i := 0; i < b.N; i++ {
		wall, rss, _ := runMeasured(b, fanOutScenario(100, 1000), "-p", "go", "--max-subagents", "100")
		total += wall
		peak = max(peak, rss)
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s-wall")
	b.ReportMetric(peak, "MB-peak-RSS")
}
