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

// consumed is how many items a Lossless consumer hands on between two
// reports of its progress to the producer (which reads it only for the
// high-water mark); a Coalesce consumer reports every item, as its
// producer decides drops by it.
const consumed = 16

// Subscription is one subscriber: its queue, and the goroutine that
// drains it while it holds events. The fields are grouped by who writes
// them, so the emitters and the draining goroutine do not share a cache
// line they both write.
type Subscription struct {
	b      *Bus
	fn     func(event.Event)
	opt    Options
	direct bool // For's sink or Inline: called by the emitter (see For)

	// The producer's side: written by emitters under b.mu.
	tail       *chunk
	tailN      int    // items in tail
	pushed     uint64 // items queued so far
	lastSeq    uint64 // sequence number of the last item queued
	seen       uint64 // handled, as the producer last read it
	lastResync bool   // the last item queued is a resync
	heldSlab   *slab  // the slab of the last item queued
	highWater  int
	dropped    uint64
	_          [64]byte

	running atomic.Bool // a goroutine drains the queue (or Stop discarded it)
	halted  atomic.Bool // stopped
	_       [64]byte

	// The consumer's side: owned by the goroutine that set running.
	head     *chunk
	read     int           // items of head handed on
	count    uint64        // items handed on
	usedSlab *slab         // the slab of the last item handed on
	handled  atomic.Uint64 // count, as reported to the producer
	done     atomic.Uint64 // sequence number of the last item handed on
	_        [64]byte

	waiters atomic.Int32  // Flush/After calls waiting on changed
	wmu     sync.Mutex    // guards changed
	changed chan struct{} // closed (and replaced) on progress while waited on
}

// enqueue queues it; b.mu is held, so items arrive in bus order.
func (s *Subscription) enqueue(it item) {
	if s.opt.Policy == Coalesce && droppable(*it.e) && s.full() {
		s.dropped++
		if !s.lastResync {
			// A resync owed here: the state as it stands at this point of
			// the stream (deltas do not change it, so one marker covers a
			// run of dropped deltas: while the queue is at its bound, the
			// marker queued last is not yet handled in full, and what it
			// will hand on is what a new one would).
			recs := s.b.state.Records()
			if recs == nil {
				recs = []lifecycle.Record{}
			}
			s.push(item{seq: it.seq, e: it.e, sl: it.sl, resync: &recs})
		}
		return
	}
	s.push(it)
}

// full reports whether the queue holds Bound items or more; b.mu is held.
func (s *Subscription) full() bool {
	if int(s.pushed-s.seen) < s.opt.Bound {
		return false
	}
	s.seen = s.handled.Load()
	return int(s.pushed-s.seen) >= s.opt.Bound
}

// push appends it and starts the draining goroutine when none runs; b.mu
// is held.
func (s *Subscription) push(it item) {
	if s.tailN == chunkSize {
		c := getChunk()
		s.tail.next.Store(c)
		s.tail, s.tailN = c, 0
	}
	if it.sl != s.heldSlab {
		it.sl.refs.Add(1)
		s.heldSlab = it.sl
	}
	s.tail.items[s.tailN] = it
	s.tailN++
	s.tail.n.Store(int32(s.tailN)) // publishes the item
	s.pushed++
	s.lastSeq, s.lastResync = it.seq, it.resync != nil
	if n := int(s.pushed - s.seen); n > s.highWater {
		// The producer's idea of the consumer's progress is stale: read
		// it only when the mark might move.
		s.seen = s.handled.Load()
		s.highWater = max(s.highWater, int(s.pushed-s.seen))
	}
	if !s.running.Load() && s.running.CompareAndSwap(false, true) {
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

// run hands the queued events to fn until the queue is empty or the
// subscription stopped. It owns the consumer's side while running is set:
// a goroutine that clears running and then finds more queued sets it
// again, or leaves it to the one an emitter started meanwhile.
func (s *Subscription) run() {
	idle := 0
	for {
		if s.halted.Load() {
			s.discard()
			return
		}
		if s.drain() {
			idle = 0
			continue
		}
		if idle < idleSpins {
			// Under a stream of events the next one is usually a moment
			// away: yield before ending rather than start a goroutine
			// per event.
			idle++
			runtime.Gosched()
			continue
		}
		head, read := s.head, s.read
		s.running.Store(false)
		// An emitter that published before the store above saw running
		// set and started nobody: look again.
		if !queued(head, read) || !s.running.CompareAndSwap(false, true) {
			return
		}
		idle = 0
	}
}

// queued reports whether items wait after the first read of head. It may
// be called once another goroutine owns head: it then reads a chunk in
// use elsewhere, through its atomics, and at worst makes run look again.
func queued(head *chunk, read int) bool {
	return int(head.n.Load()) > read || head.next.Load() != nil
}

// drain hands on every item published so far, and reports whether there
// was any.
func (s *Subscription) drain() bool {
	got := false
	for {
		c := s.head
		n := int(c.n.Load())
		for ; s.read < n; s.read++ {
			if s.halted.Load() {
				return false
			}
			s.handle(&c.items[s.read])
			got = true
		}
		s.handled.Store(s.count)
		if s.read < chunkSize {
			return got
		}
		next := c.next.Load()
		if next == nil {
			return got
		}
		s.head, s.read = next, 0
		putChunk(c)
	}
}

// handle hands on one item and reports the progress.
func (s *Subscription) handle(it *item) {
	if s.opt.After != nil {
		_ = s.opt.After.wait(context.Background(), it.seq)
		if s.halted.Load() {
			return
		}
	}
	if it.sl != s.usedSlab {
		if s.usedSlab != nil {
			s.usedSlab.release()
		}
		s.usedSlab = it.sl
	}
	if it.resync == nil {
		s.fn(*it.e)
	} else {
		for _, r := range *it.resync {
			s.fn(lifecycle.StatusEvent(*it.e, r))
		}
	}
	s.count++
	if s.opt.Policy == Coalesce || s.count%consumed == 0 {
		s.handled.Store(s.count)
	}
	s.done.Store(it.seq)
	if s.waiters.Load() > 0 {
		s.notify()
	}
}

// discard drops the queue of a stopped subscription: what is left of it
// goes to the collector.
func (s *Subscription) discard() {
	s.head = nil
	s.notify()
}

func (s *Subscription) isStopped() bool { return s.halted.Load() }

// notify wakes every wait.
func (s *Subscription) notify() {
	s.wmu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.wmu.Unlock()
}

// wait returns once s has handled every item it was queued up to
// sequence number seq (or stopped), or ctx ends.
func (s *Subscription) wait(ctx context.Context, seq uint64) error {
	if s.done.Load() >= seq || s.halted.Load() {
		return nil
	}
	// Items are queued in sequence order and any later one gets a later
	// number than seq (it has been taken): the last one queued so far
	// bounds what there is to wait for.
	s.b.mu.Lock()
	seq = min(seq, s.lastSeq)
	s.b.mu.Unlock()
	for {
		s.waiters.Add(1)
		s.wmu.Lock()
		ch := s.changed
		s.wmu.Unlock()
		ok := s.halted.Load() || s.done.Load() >= seq
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
	s.b.remove(s) // nothing is queued after this
	s.halted.Store(true)
	if !s.direct && s.running.CompareAndSwap(false, true) {
		// No goroutine drains the queue, and none will start (running
		// stays set): drop it here.
		s.discard()
		return
	}
	// The goroutine draining it drops it when it sees halted.
	s.notify()
}

// Stats is what a subscription's queue has been through.
type Stats struct {
	// HighWater is the most events the queue held at once (a Lossless
	// queue counts what it hands on in steps of a few events, so the mark
	// may be that much high): past Bound, a Lossless queue's memory grew
	// with it.
	HighWater int
	// Dropped counts the message.delta events a Coalesce queue dropped.
	Dropped uint64
}

// Stats reports the queue's high-water mark and drops.
func (s *Subscription) Stats() Stats {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return Stats{HighWater: s.highWater, Dropped: s.dropped}
}
