package ui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/event"
)

// frameInterval is the shortest time between two batches delivered to the
// program: at most about 60 per second whatever the event rate.
const frameInterval = time.Second / 60

// eventsMsg carries the events gathered since the last batch, in bus order,
// and whether the approval queue changed meanwhile.
type eventsMsg struct {
	Events    []event.Event
	Approvals bool
}

// feed is the bus subscriber. Emit never blocks: it appends to a queue and
// signals; run delivers the queue to the program in batches, one per frame
// at most, so a fast stream costs one Update per frame, not one per event.
type feed struct {
	mu     sync.Mutex
	buf    []event.Event
	signal chan struct{}
}

func newFeed() *feed { return &feed{signal: make(chan struct{}, 1)} }

// Emit queues e (it implements event.Sink; the bus calls it on the feed's
// own subscription goroutine, and it never blocks, so the frame batching
// below is all the queueing the UI adds).
func (f *feed) Emit(e event.Event) {
	f.mu.Lock()
	f.buf = append(f.buf, e)
	f.mu.Unlock()
	select {
	case f.signal <- struct{}{}:
	default:
	}
}

// take returns the queued events and empties the queue.
func (f *feed) take() []event.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.buf
	f.buf = nil
	return out
}

// run delivers batches to send until ctx ends. approvals signals a change of
// the approval queue (nil: none). send must deliver the message or return
// when the program has ended (tea.Program.Send does both).
func (f *feed) run(ctx context.Context, send func(tea.Msg), approvals <-chan struct{}, interval time.Duration) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for {
		msg := eventsMsg{}
		select {
		case <-ctx.Done():
			return
		case <-f.signal:
		case <-approvals:
			msg.Approvals = true
		}
		// Drain the other signal so one batch carries both.
		select {
		case <-approvals:
			msg.Approvals = true
		default:
		}
		select {
		case <-f.signal:
		default:
		}
		msg.Events = f.take()
		if len(msg.Events) > 0 || msg.Approvals {
			send(msg)
		}
		timer.Reset(interval)
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
	}
}
