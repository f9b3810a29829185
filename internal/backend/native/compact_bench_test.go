package native

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// fullHistory is 36 reads of 20 KB files: some 185k tokens, past 80% of a
// 200k window.
func fullHistory() []provider.Message {
	h := []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "read them all"}}}}
	line := "\tfmt.Println(\"the quick brown fox jumps over the lazy dog\") // filler\n"
	content := strings.Repeat(line, 20_000/len(line))
	for i := range 36 {
		id := fmt.Sprint("r", i)
		h = append(h,
			provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{{ToolCall: &provider.ToolCall{ID: id, Name: "read", Input: []byte(fmt.Sprintf(`{"file_path":"f%d.go"}`, i))}}}},
			provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{ToolResult: &provider.ToolResult{ToolCallID: id, Content: content}}}})
	}
	return h
}

// BenchmarkCompactionAddedTime is the time compaction adds to the turn
// that triggers it, on the loopback (no model time): the compaction step
// itself (ms-compaction: the summary request, the cuts, the rewrite), and
// the net difference between turns over the same 185k-token history with
// automatic compaction on and off, alternated (the compacting turn sends
// the summary request then a small request; the other one large request,
// so the net may be below zero).
func BenchmarkCompactionAddedTime(b *testing.B) {
	p, _ := testkit.Model(b, `
rules:
  - {name: summary, match: {last_user_contains: "Write a summary of the conversation so far"}, respond: {text: "summary"}}
  - respond: {text: "ok"}
`)
	h := fullHistory()
	turn := func(at float64) time.Duration {
		s := New(Config{ID: "lead", Provider: p, History: h, System: "You read files.",
			Context: backend.ContextPolicy{Window: 200_000, CompactAt: at}})
		start := time.Now()
		if _, err := s.Run(context.Background(), "go on"); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		if compacted := strings.HasPrefix(s.History()[0].Parts[0].Text, CompactedMarker); compacted != (at < 1) {
			b.Fatalf("compaction at %v: compacted %v", at, compacted)
		}
		return d
	}
	// The compaction step alone, as the turn runs it: summary request,
	// cuts and the history's rewrite.
	step := func() time.Duration {
		s := New(Config{ID: "lead", Provider: p, History: h, System: "You read files.",
			Context: backend.ContextPolicy{Window: 200_000}})
		start := time.Now()
		if err := s.compact(context.Background(), "", "auto"); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var on, off, steps []time.Duration
	for b.Loop() {
		on = append(on, turn(0.8))
		off = append(off, turn(1))
		steps = append(steps, step())
	}
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds()) / 1000
	}
	mOn, mOff := median(on), median(off)
	b.ReportMetric(median(steps), "ms-compaction")
	b.ReportMetric(mOn-mOff, "ms-added-net")
	b.ReportMetric(mOn, "ms-turn-compacting")
	b.ReportMetric(mOff, "ms-turn-not-compacting")
}
