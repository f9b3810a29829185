package bus

import (
	"sync"
	"sync/atomic"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// A subscriber's queue is single-producer, single-consumer: emitters
// append under the bus's lock (one at a time, in bus order), and only the
// goroutine that holds the subscription's running flag takes items out.
// So neither side takes a lock per event: the producer publishes each item
// with one atomic store of its chunk's count, the consumer reads that
// count and hands on every item below it.

// item is one queued event, or a resync owed to a Coalesce subscriber.
type item struct {
	seq    uint64
	e      *event.Event        // in sl, shared by every subscriber's queue: never changed
	sl     *slab               // where e is kept
	resync *[]lifecycle.Record // non-nil: deliver these records, e is the cause
}

// chunkSize is how many items a queue chunk holds: a queue grows by
// chunks, so a long backlog is never copied to grow.
const chunkSize = 64

// chunk is a piece of a subscriber's queue. Only the producer writes
// items, each once before it publishes it in n; next is set once, when
// the chunk is full.
type chunk struct {
	items [chunkSize]item
	n     atomic.Int32 // items published
	next  atomic.Pointer[chunk]
}

// chunks are reused across subscriptions; a spent chunk is cleared first,
// so the pool keeps no event alive.
var chunkPool = sync.Pool{New: func() any { return new(chunk) }}

func getChunk() *chunk { return chunkPool.Get().(*chunk) }

func putChunk(c *chunk) {
	clear(c.items[:])
	c.n.Store(0)
	c.next.Store(nil)
	chunkPool.Put(c)
}

// slabSize is how many events one slab holds for the queues.
const slabSize = 64

// slab keeps queued events, one copy of each shared by every queue, so a
// queued event costs no allocation of its own. refs counts the
// subscribers whose queue has reached the slab and not yet moved past it
// (each takes one reference on its first item from the slab and drops it
// on its first item from a later one, which exists only once the bus has
// filled this slab): at zero, no queue can reach the slab any more, and
// it is reused. A subscription stopped in between never drops its
// reference; its slab is left to the collector.
type slab struct {
	events [slabSize]event.Event
	refs   atomic.Int32
}

var slabPool = sync.Pool{New: func() any { return new(slab) }}

// release drops one reference to sl, reusing it after the last.
func (sl *slab) release() {
	if sl.refs.Add(-1) == 0 {
		clear(sl.events[:])
		slabPool.Put(sl)
	}
}

// hold copies e into the current slab and returns its place; b.mu is
// held.
func (b *Bus) hold(e *event.Event) (*event.Event, *slab) {
	if b.slab == nil || b.slabUsed == slabSize {
		b.slab, b.slabUsed = slabPool.Get().(*slab), 0
	}
	p := &b.slab.events[b.slabUsed]
	*p = *e
	b.slabUsed++
	return p, b.slab
}
