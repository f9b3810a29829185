package bus

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// Policy is what a subscriber's queue does with an event that arrives
// while the queue holds Bound events or more.
type Policy int

const (
	// Lossless never drops an event: past its bound the queue keeps
	// growing rather than block the emitting agents or the other
	// subscribers. The cost is memory: a subscriber that stops for good
	// holds every later event of the run (HighWater reports the deepest
	// the queue got). The session store, stream-json, observe and the
	// runtime's own subscriber are Lossless; ACP is Inline; the TUI is
	// Coalesce (with Records).
	Lossless Policy = iota
	// Coalesce is for views that can rebuild from the reducer's state:
	// while the queue is at its bound, message.delta events are dropped
	// (a Discard delta never is) and the view is owed a resync. The resync
	// comes in order, where the first dropped delta would have been: one
	// agent.status event per reducer record as the state stood there
	// (agent.status carries the whole record). Every other event, every
	// status change included, is kept; message.complete still carries a
	// message's whole text.
	Coalesce
)

// DefaultBound is a subscriber's nominal queue bound when Options gives
// none.
const DefaultBound = 4096

// Options configure a subscription.
type Options struct {
	// Name is for diagnostics.
	Name string
	// Policy is what the queue does past its bound (Lossless by default).
	Policy Policy
	// Bound is the queue's nominal bound (DefaultBound when 0).
	Bound int
	// After makes the subscriber get each event only once After has
	// handled it: stream-json prints an event only after the session
	// store was handed it, so the store's Mark covers it.
	After *Subscription
	// Records has the subscriber also get an agent.status event each time
	// an event changes a record without moving its status (its current
	// tool, tool uses, usage, what it waits for, its session): every
	// agent.status it gets is the record as the reducer now has it, so a
	// view renders the records it is handed and keeps no reducer of its
	// own. Other subscribers, and the wire, get agent.status only when a
	// status moves. It also gets a teammate.record event each time an
	// event changes a teammate (lifecycle.TeammateEvent), which nobody
	// else gets.
	Records bool
	// Inline has fn called by the emitter, after the bus's lock is
	// released, in bus order, and before Emit returns: no queue, no
	// goroutine, and no protection from a slow fn, which delays every
	// emitter. Only for a subscriber whose effect must be in place when
	// Emit returns and that never blocks (ACP's translator: it maps a
	// permission request before the asker looks it up, and notes an
	// edit's file before the tool writes it). Policy, Bound and After do
	// not apply.
	Inline bool
}

// idleSpins is how many times a subscription's goroutine yields, finding
// its queue empty, before it ends.
const idleSpins = 2

// item is one queued event, or a resync owed to a Coalesce subscriber.
type item struct {
	seq    uint64
	e      *event.Event        // shared by every subscriber's queue: never changed
	resync *[]lifecycle.Record // non-nil: deliver these records, e is the cause
}

// Subscription is one subscriber: its queue, and the goroutine that
// drains it while it holds events.
type Subscription struct {
	b      *Bus
	fn     func(event.Event)
	opt    Options
	direct bool   // For's sink, called by the emitter (see For)
	first  uint64 // sequence number of the first event it may get

	mu        sync.Mutex
	queue     chunks // waiting for the goroutine
	free      *chunk // spent chunks, for reuse
	running   bool   // a goroutine drains the queue
	stopped   bool
	halted    atomic.Bool // stopped, read without the lock
	highWater int
	dropped   uint64

	pending atomic.Int64  // events queued or being handled
	done    atomic.Uint64 // sequence number of the last event handled
	waiters atomic.Int32  // Flush/After calls waiting on changed
	changed chan struct{} // closed (and replaced) on progress while waited on
}

// enqueue queues it (b.mu is held, so items arrive in bus order) and
// starts the draining goroutine when none runs.
func (s *Subscription) enqueue(it item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	if s.opt.Policy == Coalesce && int(s.pending.Load()) >= s.opt.Bound && droppable(*it.e) {
		s.dropped++
		if last := s.queue.last(); last == nil || last.resync == nil {
			// A resync owed here: the state as it stands at this point of
			// the stream (deltas do not change it, so one marker covers a
			// run of dropped deltas).
			recs := s.b.state.Records()
			if recs == nil {
				recs = []lifecycle.Record{}
			}
			s.push(item{seq: it.seq, e: it.e, resync: &recs})
		}
		return
	}
	s.push(it)
}

// push appends it; s.mu is held.
func (s *Subscription) push(it item) {
	s.queue.push(it, &s.free)
	if n := int(s.pending.Add(1)); n > s.highWater {
		s.highWater = n
	}
	if !s.running {
		s.running = true
		go s.run()
	}
}

// droppable reports whether a Coalesce view may lose e: streamed text,
// which the message's message.complete carries whole.
func droppable(e event.Event) bool {
	if e.Type != event.MessageDelta {
		return false
	}
	d, ok := e.Data.(event.MessageDeltaData)
	return ok && !d.Discard
}

// run hands the queued events to fn, a batch at a time, until the queue is
// empty or the subscription stopped.
func (s *Subscription) run() {
	var batch chunks
	idle := 0
	for {
		s.mu.Lock()
		batch.release(&s.free)
		if s.queue.empty() && !s.stopped && idle < idleSpins {
			// Under a stream of events the next one is usually a moment
			// away: yield before ending rather than start a goroutine
			// per event.
			s.mu.Unlock()
			idle++
			runtime.Gosched()
			continue
		}
		idle = 0
		if s.queue.empty() || s.stopped {
			s.running = false
			s.pending.Store(0)
			s.mu.Unlock()
			s.notify()
			return
		}
		batch, s.queue = s.queue, chunks{}
		s.mu.Unlock()
		s.drain(&batch)
	}
}

// drain hands batch's items to fn until it ends or s stops.
func (s *Subscription) drain(batch *chunks) {
	for c := batch.head; c != nil; c = c.next {
		for i := range c.n {
			it := &c.items[i]
			if s.opt.After != nil {
				_ = s.opt.After.wait(context.Background(), it.seq)
			}
			if s.isStopped() {
				return
			}
			s.handle(it)
			s.done.Store(it.seq)
			s.pending.Add(-1)
			if s.waiters.Load() > 0 {
				s.notify()
			}
		}
	}
}

// handle calls fn with one item.
func (s *Subscription) handle(it *item) {
	if it.resync == nil {
		s.fn(*it.e)
		return
	}
	for _, r := range *it.resync {
		s.fn(lifecycle.StatusEvent(*it.e, r))
	}
}

func (s *Subscription) isStopped() bool { return s.halted.Load() }

// notify wakes every wait.
func (s *Subscription) notify() {
	s.mu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// wait returns once s has handled every event up to seq (or has nothing
// left to handle, or stopped), or ctx ends.
func (s *Subscription) wait(ctx context.Context, seq uint64) error {
	for {
		s.mu.Lock()
		s.waiters.Add(1)
		ch := s.changed
		ok := s.stopped || s.done.Load() >= seq || !s.running && s.queue.empty()
		s.mu.Unlock()
		if ok {
			s.waiters.Add(-1)
			return nil
		}
		select {
		case <-ch:
			s.waiters.Add(-1)
		case <-ctx.Done():
			s.waiters.Add(-1)
			return ctx.Err()
		}
	}
}

// Flush waits until s has handled every event emitted before the call
// (or was closed), or ctx ends (its error is returned). The reducer's
// state needs no Flush: it is current when Emit returns. Called from s's
// own callback it would wait for itself: it must not be.
func (s *Subscription) Flush(ctx context.Context) error {
	if s.direct {
		return s.b.waitInline(ctx, s.b.taken())
	}
	return s.wait(ctx, s.b.last())
}

// Close takes s off the bus and waits until it has handled every event
// emitted before the call: nothing is lost that came before, nothing is
// delivered that came after. It must not be called from s's own callback,
// and it waits as long as the callback blocks; Stop does not wait.
func (s *Subscription) Close() {
	s.b.remove(s)
	if s.direct {
		_ = s.b.waitInline(context.Background(), s.b.taken())
	}
	_ = s.wait(context.Background(), s.b.last())
	s.Stop()
}

// Stop takes s off the bus and discards what is still queued for it; a
// call of the callback in progress runs to its end, unwaited.
func (s *Subscription) Stop() {
	s.b.remove(s)
	s.mu.Lock()
	s.stopped = true
	s.halted.Store(true)
	s.queue.release(&s.free)
	s.mu.Unlock()
	s.notify()
}

// Stats is what a subscription's queue has been through.
type Stats struct {
	// HighWater is the most events the queue held at once: past Bound, a
	// Lossless queue's memory grew with it.
	HighWater int
	// Dropped counts the message.delta events a Coalesce queue dropped.
	Dropped uint64
}

// Stats reports the queue's high-water mark and drops.
func (s *Subscription) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{HighWater: s.highWater, Dropped: s.dropped}
}

// chunkSize is how many items a queue chunk holds: a queue grows by
// chunks, so a long backlog is never copied to grow.
const chunkSize = 32

// chunk is a piece of a subscriber's queue.
type chunk struct {
	items [chunkSize]item
	n     int
	next  *chunk
}

// chunks is a FIFO of items in linked chunks.
type chunks struct{ head, tail *chunk }

func (q *chunks) empty() bool { return q.head == nil || q.head.n == 0 }

// last is the item pushed last, nil when none.
func (q *chunks) last() *item {
	if q.tail == nil || q.tail.n == 0 {
		return nil
	}
	return &q.tail.items[q.tail.n-1]
}

// push appends it, taking a chunk from free when it needs one.
func (q *chunks) push(it item, free **chunk) {
	if q.tail == nil || q.tail.n == chunkSize {
		c := *free
		if c != nil {
			*free = c.next
			c.next = nil
		} else {
			c = new(chunk)
		}
		if q.tail == nil {
			q.head = c
		} else {
			q.tail.next = c
		}
		q.tail = c
	}
	q.tail.items[q.tail.n] = it
	q.tail.n++
}

// release empties q, its chunks cleared (no event kept alive) and kept in
// free for reuse, a few at most.
func (q *chunks) release(free **chunk) {
	kept := 0
	for c := *free; c != nil; c = c.next {
		kept++
	}
	for c := q.head; c != nil; {
		next := c.next
		clear(c.items[:c.n])
		c.n, c.next = 0, nil
		if kept < 4 {
			c.next = *free
			*free = c
			kept++
		}
		c = next
	}
	q.head, q.tail = nil, nil
}
