//go:build linux

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
)

// nestedFanOutScenario: the lead starts parents sync sub-agents at once;
// each starts children sync sub-agents of its own, each answering after
// delayMS; each parent then reports, and the lead answers.
func nestedFanOutScenario(parents, children, delayMS int) string {
	var lead, kids strings.Builder
	for p := range parents {
		fmt.Fprintf(&lead, "        - {name: task, input: {description: \"part %d\", prompt: \"PARENT-%d\"}}\n", p, p)
	}
	for c := range children {
		fmt.Fprintf(&kids, "        - {name: task, input: {description: \"piece %d\", prompt: \"CHILD-%d\"}}\n", c, c)
	}
	return fmt.Sprintf(`
rules:
  - {name: child, match: {first_user_contains: CHILD-}, respond: {text: "ok", delay_ms: %d}}
  - {name: parent-final, match: {first_user_contains: PARENT-, has_tool_results: true}, respond: {text: "part done"}}
  - name: parent
    match: {first_user_contains: PARENT-}
    respond:
      tool_calls:
%s  - {name: final, match: {has_tool_results: true}, respond: {text: "done"}}
  - name: fanout
    respond:
      tool_calls:
%s`, delayMS, kids.String(), lead.String())
}

// BenchmarkNested1000As10x100: 1,000 sub-agents as 10 parents × 100
// children (depth 2), 1 s each, at cap 1,000 (a parent blocked on its
// children gives its slot back). Its figures are held to the flat
// 1,000-agent run's (Benchmark1000Subagents): within 10%.
func BenchmarkNested1000As10x100(b *testing.B) {
	const parents, children = 10, 100
	var wall, cpu []time.Duration
	own := 0.0
	for i := 0; i < b.N; i++ {
		m := runMeasured(b, nestedFanOutScenario(parents, children, 1000), "-p", "go", "--max-subagents", "1000", "--max-depth", "2")
		if got, reports, final := len(loopback.ByRule(m.Log, "child")), len(loopback.ByRule(m.Log, "parent-final")), len(loopback.ByRule(m.Log, "final")); got != parents*children || reports != parents || final != 1 {
			b.Fatalf("%d children asked the model, %d parents reported and the lead answered %d times; want %d, %d and 1",
				got, reports, final, parents*children, parents)
		}
		wall, cpu = append(wall, m.Wall), append(cpu, m.CPU)
		own = max(own, m.MaxRSSMB)
	}
	b.ReportMetric(median(wall).Seconds(), "s-wall")
	b.ReportMetric(own, "MB-peak-RSS")
	b.ReportMetric(ms(median(cpu))/float64(parents*children+parents), "ms-CPU-per-agent")
}
