package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
)

// BenchmarkTranslateV1Capture measures the translator alone on the v1
// capture (fan-out, interrupt, approval through an allowing gate), in
// events emitted per second.
func BenchmarkTranslateV1Capture(b *testing.B) {
	msgs := readCapture(b, "codex-subagents-appserver.jsonl")
	gate := allowAll(b)
	var n int
	sink := event.SinkFunc(func(event.Event) { n++ })
	noReply := func(json.RawMessage, any, *rpcError) error { return nil }
	b.ReportAllocs()
	for range b.N {
		tr := NewTranslator(backend.Config{SessionID: "s1", AgentID: "lead", Gate: gate, Sink: sink}, noReply)
		for _, m := range msgs {
			_, _ = replayMessage(tr, m)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(len(msgs)*b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkCodexAdapterThroughBus measures the adapter's path on the v1
// capture as a Session runs it, minus the pipe: each stdout line decoded,
// translated, and emitted into a real bus.Bus, whose lifecycle reducer
// applies every event and hands it to a subscriber. events/s counts the
// adapter's events into the bus (the figure budgeted at over 100,000);
// deliveries/s adds the agent.status events the bus derives.
func BenchmarkCodexAdapterThroughBus(b *testing.B) {
	lines := captureLines(b, "codex-subagents-appserver.jsonl")
	gate := allowAll(b)
	noReply := func(json.RawMessage, any, *rpcError) error { return nil }
	var emitted, delivered int
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		bs := bus.New()
		unsub := bs.Subscribe(func(event.Event) { delivered++ })
		sink := event.SinkFunc(func(e event.Event) { emitted++; bs.Emit(e) })
		tr := NewTranslator(backend.Config{SessionID: "s1", AgentID: "lead", Gate: gate, Sink: sink}, noReply)
		for _, line := range lines {
			m, ok := decodeLine(line)
			if !ok {
				continue // dropped unread, as the Session's reader does
			}
			_, _ = replayMessage(tr, m)
		}
		unsub()
		if len(bs.Agents()) == 0 {
			b.Fatal("the bus saw no sub-agent: the capture was not translated")
		}
	}
	b.ReportMetric(float64(emitted)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(delivered)/b.Elapsed().Seconds(), "deliveries/s")
	b.ReportMetric(float64(emitted)/float64(b.N), "events/op")
}

// captureLines returns the non-empty lines of a capture in testdata.
func captureLines(b *testing.B, name string) [][]byte {
	b.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		b.Fatal(err)
	}
	var out [][]byte
	for _, l := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}
