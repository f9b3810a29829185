//go:build linux

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
)

// BenchmarkBackgroundShells100x1s: the lead starts 100 background shells
// (sleep 1) in one message and ends its turn; their exits wake it. Figures
// (medians): the whole run, the time from the first shell's end (its
// shell.end) to the woken lead's model request (budget 50 ms), CPU of the
// whole tree per shell, and Atomic's peak RSS. The tree's memory is not
// sampled: sampling 200 processes every 2 ms slowed the run by ~40 ms.
func BenchmarkBackgroundShells100x1s(b *testing.B) {
	const n = 100
	var calls strings.Builder
	for range n {
		calls.WriteString("        - {name: bash, input: {command: \"sleep 1\", run_in_background: true}}\n")
	}
	scenario := fmt.Sprintf(`
rules:
  - {name: woken, match: {last_user_contains: "shell-notification"}, respond: {text: "ok"}}
  - {name: started, match: {has_tool_results: true}, respond: {text: "started"}}
  - name: lead
    respond:
      tool_calls:
%s`, calls.String())
	var wall, wake, cpu []time.Duration
	own := 0.0
	for i := 0; i < b.N; i++ {
		m := runMeasuredOwn(b, scenario, "-p", "go", "--permission-mode", "bypassPermissions", "--output-format", "stream-json")
		var ends []time.Time
		for _, e := range events(b, m.Out) {
			if e.Type == event.ShellEnd {
				at, err := time.Parse(time.RFC3339Nano, e.Time)
				if err != nil {
					b.Fatal(err)
				}
				ends = append(ends, at)
			}
		}
		woken := loopback.ByRule(m.Log, "woken")
		if len(ends) != n || len(woken) == 0 {
			b.Fatalf("%d shells ended and the lead was woken %d times, want %d and at least 1", len(ends), len(woken), n)
		}
		wall, cpu = append(wall, m.Wall), append(cpu, m.CPU)
		wake = append(wake, woken[0].Start.Sub(ends[0]))
		own = max(own, m.MaxRSSMB)
	}
	b.ReportMetric(median(wall).Seconds(), "s-wall")
	b.ReportMetric(ms(median(wake)), "ms-wake-latency")
	b.ReportMetric(ms(median(cpu))/n, "ms-CPU-per-shell")
	b.ReportMetric(own, "MB-peak-RSS")
}
