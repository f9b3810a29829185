package subagent

import (
	"context"
	"sync"
)

// slots is a counting semaphore that admits waiters in FIFO order (a
// buffered channel does not promise an order).
type slots struct {
	mu      sync.Mutex
	free    int
	waiters []chan struct{}
}

func newSlots(n int) *slots { return &slots{free: n} }

// tryAcquire takes a slot if one is free and nobody is queued.
func (s *slots) tryAcquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.free > 0 && len(s.waiters) == 0 {
		s.free--
		return true
	}
	return false
}

// acquire waits for a slot in arrival order, or for ctx.
func (s *slots) acquire(ctx context.Context) error {
	if s.tryAcquire() {
		return nil
	}
	s.mu.Lock()
	if s.free > 0 && len(s.waiters) == 0 {
		s.free--
		s.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	s.waiters = append(s.waiters, ch)
	s.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for i, w := range s.waiters {
			if w == ch {
				s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
				s.mu.Unlock()
				return ctx.Err()
			}
		}
		s.mu.Unlock()
		// Granted while we were giving up: hand the slot on.
		s.release()
		return ctx.Err()
	}
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
