package ui

import (
	"context"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/event"
)

func TestFeedDeliversEveryEventInOrderAtMostSixtyBatchesASecond(t *testing.T) {
	f := newFeed()
	var mu sync.Mutex
	var batches int
	var got []int
	send := func(msg tea.Msg) {
		mu.Lock()
		defer mu.Unlock()
		batches++
		for _, e := range msg.(eventsMsg).Events {
			got = append(got, e.Data.(int))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.run(ctx, send, nil, frameInterval)
	}()
	const n = 5000
	start := time.Now()
	for i := range n {
		f.Emit(event.Event{Type: event.MessageDelta, Data: i})
		if i%50 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == n })
	elapsed := time.Since(start)
	cancel()
	<-done
	for i, v := range got {
		if v != i {
			t.Fatalf("event %d delivered as %d: order broken", i, v)
		}
	}
	if limit := int(elapsed/frameInterval) + 2; batches > limit {
		t.Errorf("%d batches in %s: more than one per frame (limit %d)", batches, elapsed, limit)
	}
	if batches >= n/10 {
		t.Errorf("%d batches for %d events: events are not batched", batches, n)
	}
}

func TestFeedEmitNeverBlocks(t *testing.T) {
	f := newFeed() // nobody is draining it
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100000 {
			f.Emit(event.Event{Type: event.MessageDelta})
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Emit blocked with no consumer")
	}
	if n := len(f.take()); n != 100000 {
		t.Errorf("queued %d events, want 100000", n)
	}
}

func TestFeedSignalsApprovalChanges(t *testing.T) {
	f := newFeed()
	appr := make(chan struct{}, 1)
	msgs := make(chan eventsMsg, 4)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.run(ctx, func(m tea.Msg) { msgs <- m.(eventsMsg) }, appr, frameInterval)
	}()
	appr <- struct{}{}
	select {
	case m := <-msgs:
		if !m.Approvals {
			t.Error("batch does not carry the approval change")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("approval change not delivered")
	}
	cancel()
	<-done
}
