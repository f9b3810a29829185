package bus

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// TestEachSubscriberGetsEveryEventAsEmittedWhileQueueMemoryIsReused runs
// events through many slabs and chunks to subscribers that keep pace, lag,
// pause (so their goroutines end and start again), join late and leave
// early: each gets every event it was queued, whole, in order, although
// the memory that carried it is reused for later ones.
func TestEachSubscriberGetsEveryEventAsEmittedWhileQueueMemoryIsReused(t *testing.T) {
	const n = 3000
	b := New()
	check := func(name string, from, to int) (*recorder, func()) {
		var r recorder
		return &r, func() {
			t.Helper()
			got := r.events()
			if len(got) != to-from {
				t.Fatalf("%s got %d events, want %d", name, len(got), to-from)
			}
			for k, e := range got {
				if want := fmt.Sprint(from + k); e.Data.(event.MessageDeltaData).Text != want || e.Time.Unix() != int64(from+k) {
					t.Fatalf("%s's event %d is %v, want number %s", name, k, e, want)
				}
			}
		}
	}
	fast, checkFast := check("fast", 0, n)
	b.SubscribeWith(fast.Emit, Options{Name: "fast"})
	lag, checkLag := check("lagging", 0, n)
	b.SubscribeWith(func(e event.Event) {
		if e.Time.Unix()%97 == 0 {
			time.Sleep(time.Millisecond)
		}
		lag.Emit(e)
	}, Options{Name: "lagging"})
	early, checkEarly := check("early", 0, n/2)
	earlySub := b.SubscribeWith(early.Emit, Options{Name: "early"})
	var late *recorder
	var checkLate func()
	for k := range n {
		if k == n/3 {
			late, checkLate = check("late", n/3, n)
			b.SubscribeWith(late.Emit, Options{Name: "late"})
		}
		if k == n/2 {
			earlySub.Close()
		}
		if k%200 == 0 {
			time.Sleep(2 * time.Millisecond) // the drainers go idle and end
		}
		b.Emit(numbered(0, k))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	b.Close()
	checkFast()
	checkLag()
	checkEarly()
	checkLate()
}
