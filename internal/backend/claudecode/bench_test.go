package claudecode

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
)

// BenchmarkClaudeAdapterThroughBus replays the captured fan-out,
// background and interrupt stream through the translator into a real bus
// (lifecycle reducer, agent.status events, one subscriber), a fresh
// translator and bus per replay, and reports the adapter's events per
// second. Budget: over 100,000 events/s.
func BenchmarkClaudeAdapterThroughBus(b *testing.B) {
	benchmarkAdapter(b, "claude-subagents.jsonl", true)
}

// BenchmarkClaudeAdapterWithoutBus is the same replay into a sink that
// only counts: the difference to ThroughBus is the bus's share.
func BenchmarkClaudeAdapterWithoutBus(b *testing.B) {
	benchmarkAdapter(b, "claude-subagents.jsonl", false)
}

// BenchmarkClaudeAdapterStreamingThroughBus replays a capture made with
// --include-partial-messages, as the adapter runs the CLI: most lines are
// small stream_events.
func BenchmarkClaudeAdapterStreamingThroughBus(b *testing.B) {
	benchmarkAdapter(b, "claude-partial.jsonl", true)
}

func benchmarkAdapter(b *testing.B, capture string, throughBus bool) {
	raw, err := os.ReadFile(filepath.Join("testdata", capture))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
	emitted, delivered := 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		sink := event.SinkFunc(func(event.Event) { emitted++; delivered++ })
		unsub := func() {}
		if throughBus {
			bs := bus.New()
			unsub = bs.Subscribe(func(event.Event) { delivered++ })
			sink = func(e event.Event) { emitted++; bs.Emit(e) }
		}
		tr := newTranslator("s1", "lead", sink, time.Now)
		for _, l := range lines {
			if _, err := tr.feed(l); err != nil {
				b.Fatal(err)
			}
		}
		tr.endOpen(true, "end of the replay")
		unsub() // every event delivered
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if emitted == 0 || delivered < emitted {
		b.Fatalf("the replay emitted %d events and the bus delivered %d", emitted, delivered)
	}
	b.ReportMetric(float64(emitted)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(emitted)/float64(b.N), "events/replay")
}
