package headless

import (
	"errors"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// errStalled is returned when stdout accepted nothing for the whole drain
// grace at the end of a run.
var errStalled = errors.New("stdout accepted no output")

// Durability is the session store as stream-json output sees it: an
// event is printed only once the store holds it, so whatever a reader of
// stdout saw survives a kill -9. The store must be subscribed to the bus
// before the output, so Mark, taken when the output is handed an event,
// covers that event.
type Durability interface {
	// Mark is a ticket for every event recorded so far.
	Mark() uint64
	// Wait returns once everything up to mark is committed, or at once
	// when persistence is off or has failed.
	Wait(mark uint64)
}

// streamWriter prints events as stream-json lines without ever blocking
// the bus: Emit only queues (the queue is unbounded), and one goroutine
// writes and flushes what is queued, a batch at a time, once the store
// (when there is one) has committed the batch. A slow or stalled reader of
// stdout, or a slow disk, therefore delays nothing but the output. The
// first write error (EPIPE when the reader went away) stops the writer and
// closes Failed.
type streamWriter struct {
	enc     lineEncoder
	durable Durability // nil: print at once

	mu      sync.Mutex
	queue   []event.Event
	mark    uint64 // durable's Mark when the last queued event came
	closing bool
	err     error

	wake     chan struct{} // something was queued, or closing
	progress chan struct{} // a batch reached the writer
	failed   chan struct{} // closed on the first write error
	done     chan struct{} // the writer goroutine ended
}

// lineEncoder writes events as lines: Atomic's (event.Encoder) or
// Claude Code's (claudeEncoder).
type lineEncoder interface {
	Encode(event.Event) error
	Flush() error
}

func newStreamWriterWith(enc lineEncoder, durable Durability) *streamWriter {
	s := &streamWriter{
		enc: enc, durable: durable,
		wake: make(chan struct{}, 1), progress: make(chan struct{}, 1),
		failed: make(chan struct{}), done: make(chan struct{}),
	}
	go s.run()
	return s
}

// Emit queues e; it never blocks on the output.
func (s *streamWriter) Emit(e event.Event) {
	s.mu.Lock()
	if s.err == nil && !s.closing {
		s.queue = append(s.queue, e)
		if s.durable != nil {
			s.mark = s.durable.Mark()
		}
	}
	s.mu.Unlock()
	poke(s.wake)
}

// Failed is closed when writing failed; Close returns the error.
func (s *streamWriter) Failed() <-chan struct{} { return s.failed }

func (s *streamWriter) run() {
	defer close(s.done)
	for {
		s.mu.Lock()
		batch, closing, mark := s.queue, s.closing, s.mark
		s.queue = nil
		s.mu.Unlock()
		if len(batch) == 0 {
			if closing {
				return
			}
			<-s.wake
			continue
		}
		if s.durable != nil {
			s.durable.Wait(mark)
		}
		var err error
		for _, e := range batch {
			if err = s.enc.Encode(e); err != nil {
				break
			}
		}
		if err == nil {
			err = s.enc.Flush()
		}
		if err != nil {
			s.mu.Lock()
			s.err, s.queue = err, nil
			s.mu.Unlock()
			close(s.failed)
			return
		}
		poke(s.progress)
	}
}

// Close writes what is queued and stops the writer. It gives up when stdout
// accepts nothing for stall (the writer goroutine then ends when its
// blocked write returns, or with the process), so a reader that stopped
// reading cannot hold the process forever, while a slow one that keeps
// reading gets everything. It returns the write error, if any.
func (s *streamWriter) Close(stall time.Duration) error {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	poke(s.wake)
	t := time.NewTimer(stall)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.err
		case <-s.progress:
			t.Reset(stall)
		case <-t.C:
			return errStalled
		}
	}
}

// poke wakes the reader of a one-slot channel without blocking.
func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
