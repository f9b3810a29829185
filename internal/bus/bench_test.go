package bus

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// BenchmarkBusThroughput is events per second through the bus to five
// subscribers that each do a little work per event (count it): the rate
// at which agents can emit, every event handled by every subscriber by
// the end of the timed loop.
func BenchmarkBusThroughput(b *testing.B) {
	bs := New()
	var counts [5]atomic.Int64
	for i := range counts {
		c := &counts[i]
		bs.Subscribe(func(event.Event) { c.Add(1) })
	}
	e := event.Event{Type: event.MessageDelta, Time: time.Unix(1, 0), AgentID: "lead", Data: event.MessageDeltaData{Text: "x"}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		bs.Emit(e)
	}
	if err := bs.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	for i := range counts {
		if got := counts[i].Load(); got != int64(b.N) {
			b.Fatalf("subscriber %d handled %d events, want %d", i, got, b.N)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	bs.Close()
}
