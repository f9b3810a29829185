package subagent

import (
	"context"
	"sync"
)

// slots is a counting semaphore that admits waiters in the order they
// joined (a buffered channel promises no order). Joining is synchronous, so
// the caller's order, not goroutine scheduling, decides the queue.
type slots struct {
	mu      sync.Mutex
	free    int
	waiters []chan struct{}
}

func newSlots(n int) *slots { return &slots{free: n} }

// ticket is a place in the queue: granted at once, or a channel closed when
// the slot is handed over.
type ticket struct {
	s       *slots
	granted chan struct{}
}

// join takes a slot if one is free and nobody is queued, else queues.
func (s *slots) join() *ticket {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &ticket{s: s, granted: make(chan struct{})}
	if s.free > 0 && len(s.waiters) == 0 {
		s.free--
		close(t.granted)
		return t
	}
	s.waiters = append(s.waiters, t.granted)
	return t
}

// joinFront is join for an agent that ran before and gave its slot back
// while blocked: it goes ahead of every waiter.
func (s *slots) joinFront() *ticket {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &ticket{s: s, granted: make(chan struct{})}
	if s.free > 0 {
		s.free--
		close(t.granted)
		return t
	}
	s.waiters = append([]chan struct{}{t.granted}, s.waiters...)
	return t
}

// queued reports whether the ticket still waits.
func (t *ticket) queued() bool {
	select {
	case <-t.granted:
		return false
	default:
		return true
	}
}

// wait blocks until the slot is handed over, or ctx ends (then the ticket
// leaves the queue, or passes a slot granted meanwhile on).
func (t *ticket) wait(ctx context.Context) error {
	select {
	case <-t.granted:
		return nil
	case <-ctx.Done():
	}
	t.abandon() // granted while we were giving up: the slot is handed on
	return ctx.Err()
}

// release frees a slot, handing it to the longest waiter.
func (s *slots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiters) > 0 {
		ch := s.waiters[0]
		s.waiters = s.waiters[1:]
		close(ch)
		return
	}
	s.free++
}

// abandon gives the ticket up without waiting: it leaves the queue, or
// hands a slot already granted on.
func (t *ticket) abandon() {
	s := t.s
	s.mu.Lock()
	for i, w := range s.waiters {
		if w == t.granted {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			s.mu.Unlock()
			return
		}
	}
	s.mu.Unlock()
	s.release() // granted (slots grant under s.mu): hand it on
}
