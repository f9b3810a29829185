//go:build linux

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
)

// BenchmarkOneAnswer (S1): a plain headless run that gets one answer, as
// a user starts it (with the supervisor). Medians over the runs: start to
// the first model request (budget 15 ms), the whole run (25 ms), the end
// of the answer to the process's end (5 ms); peaks over the runs: the
// largest process's own (40 MB) and the whole tree's (25 MB); and what the
// run sent the model.
func BenchmarkOneAnswer(b *testing.B) {
	var first, wall, exit []time.Duration
	own, tree, sent := 0.0, 0.0, 0.0
	for i := 0; i < b.N; i++ {
		m := runMeasured(b, "rules: [{respond: {text: hi}}]", "-p", "hi")
		first, wall, exit = append(first, m.FirstRequest), append(wall, m.Wall), append(exit, m.ExitAfterAnswer)
		own, tree, sent = max(own, m.MaxRSSMB), max(tree, m.TreePeakMB), m.SentKB
	}
	b.ReportMetric(ms(median(first)), "ms-to-first-request")
	b.ReportMetric(ms(median(wall)), "ms-wall")
	b.ReportMetric(ms(median(exit)), "ms-exit-after-answer")
	b.ReportMetric(own, "MB-peak-RSS")
	b.ReportMetric(tree, "MB-peak-tree-RSS")
	b.ReportMetric(sent, "KB-sent")
}

// BenchmarkOneAnswerOpenAI is S1 on the OpenAI provider, whose SDK runs
// in atomic-openai: the tree is atomic and its helper. No budget: it says
// what the helper costs an OpenAI run.
func BenchmarkOneAnswerOpenAI(b *testing.B) {
	var wall []time.Duration
	own, tree := 0.0, 0.0
	for i := 0; i < b.N; i++ {
		srv := server(b, "rules: [{respond: {text: hi}}]")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		m := runMeasuredCmd(b, srv, command(b, ctx, srv, "openai", b.TempDir(), "-p", "hi"))
		cancel()
		wall = append(wall, m.Wall)
		own, tree = max(own, m.MaxRSSMB), max(tree, m.TreePeakMB)
	}
	b.ReportMetric(ms(median(wall)), "ms-wall")
	b.ReportMetric(own, "MB-peak-RSS")
	b.ReportMetric(tree, "MB-peak-tree-RSS")
}

// BenchmarkRunHelp: `atomic run --help`, start to end (median). Budget:
// 8 ms.
func BenchmarkRunHelp(b *testing.B) {
	var wall []time.Duration
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := command(b, ctx, server(b, "rules: []"), "anthropic", b.TempDir())
		cmd.Args = []string{cmd.Args[0], "run", "--help"}
		wall = append(wall, measureRun(b, cmd).Wall)
		cancel()
	}
	b.ReportMetric(ms(median(wall)), "ms-wall")
}

// BenchmarkFanOut3x2s (S2): 3 sub-agents each answering after 2 s, whole
// headless run. Budget: under 2.2 s wall, 70 KB sent to the model.
func BenchmarkFanOut3x2s(b *testing.B) {
	var wall []time.Duration
	sent := 0.0
	for i := 0; i < b.N; i++ {
		m := runMeasured(b, fanOutScenario(3, 2000), "-p", "go")
		wall, sent = append(wall, m.Wall), m.SentKB
	}
	b.ReportMetric(median(wall).Seconds(), "s-wall")
	b.ReportMetric(sent, "KB-sent")
}

// fanOut runs n sub-agents at cap n, each answering after 1 s, and
// reports the median wall time, the peaks of the largest process and of
// the tree, the CPU of the whole tree per sub-agent and what the run sent
// the model.
func fanOut(b *testing.B, n int) {
	var wall, cpu []time.Duration
	own, tree, sent := 0.0, 0.0, 0.0
	for i := 0; i < b.N; i++ {
		m := runMeasured(b, fanOutScenario(n, 1000), "-p", "go", "--max-subagents", fmt.Sprint(n))
		if got, final := len(loopback.ByRule(m.Log, "sub")), len(loopback.ByRule(m.Log, "final")); got != n || final != 1 {
			b.Fatalf("%d sub-agents asked the model and the lead's final answer came %d times, want %d and 1", got, final, n)
		}
		wall, cpu = append(wall, m.Wall), append(cpu, m.CPU)
		own, tree, sent = max(own, m.MaxRSSMB), max(tree, m.TreePeakMB), m.SentKB
	}
	b.ReportMetric(median(wall).Seconds(), "s-wall")
	b.ReportMetric(own, "MB-peak-RSS")
	b.ReportMetric(tree, "MB-peak-tree-RSS")
	b.ReportMetric(ms(median(cpu))/float64(n), "ms-CPU-per-agent")
	b.ReportMetric(sent, "KB-sent")
}

// Benchmark100Subagents: 100 sub-agents at cap 100, 1 s each. Budget:
// 1.1 s wall, 40 MB.
func Benchmark100Subagents(b *testing.B) { fanOut(b, 100) }

// Benchmark1000Subagents: 1,000 sub-agents at cap 1,000 in process, 1 s
// each. Budget: 1.6 s wall, 160 MB, 0.8 ms of CPU per sub-agent.
func Benchmark1000Subagents(b *testing.B) { fanOut(b, 1000) }
