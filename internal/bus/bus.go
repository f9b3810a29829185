// Package bus is the one place events fan in: every agent emits into the
// Bus, which applies the lifecycle reducer, adds an agent.status event for
// each status the reducer changed, and hands every event, in one order, to
// the subscribers (TUI, headless output, the session store, runtime).
//
// Discipline: the reducer's state is applied under the bus's lock, so
// Agents, Agent and Unsettled are current the moment Emit returns. Delivery
// is not: each subscriber has its own queue and its own goroutine, and
// none runs under the bus's lock, so a slow or stuck subscriber delays only
// itself — never the emitting agents nor the other subscribers. Each
// subscriber still sees every event in the one bus order. Code that needs
// a subscriber to have handled what was emitted so far says so with a
// barrier: Subscription.Flush (one subscriber) or Bus.Flush (all). A
// subscriber whose effect must be in place when Emit returns, and that
// never blocks, may subscribe Inline instead (ACP does): the emitter calls
// it, still outside the lock and in bus order.
package bus

import (
	"context"
	"sync"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// Bus serialises events and fans them out to subscribers (see the package
// doc for the delivery discipline).
type Bus struct {
	mu       sync.Mutex
	state    lifecycle.State
	statuses map[string]lifecycle.Status         // by task tool call id: last status reported
	told     map[string]lifecycle.TeammateStatus // by teammate name: last status reported
	seq      uint64                              // of the last item queued
	subs     []*Subscription                     // copy on write: Emit reads it under mu
	records  bool                                // some subscriber has Options.Records
	direct   []*Subscription                     // For's sink: delivered in the emitter's goroutine
	slab     *slab                               // where queued events are kept (hold)
	slabUsed int                                 // events in slab

	// The direct subscribers are called outside mu, in bus order: each
	// Emit takes a ticket under mu and delivers when served reaches it.
	dmu     sync.Mutex
	dcond   *sync.Cond
	tickets uint64
	served  uint64
}

// New returns an empty Bus.
func New() *Bus {
	b := &Bus{statuses: map[string]lifecycle.Status{}, told: map[string]lifecycle.TeammateStatus{}}
	b.dcond = sync.NewCond(&b.dmu)
	return b
}

// For returns sink itself when it is a Bus, else a new Bus that hands every
// event on to sink: a component given a plain sink still reads the one
// lifecycle state of the events it emits. sink is called in the emitting
// goroutine, in bus order, outside the bus's lock, and the event has
// reached it when Emit returns: it is the caller's own sink (a recorder in
// a test, a queue), which must not block.
func For(sink event.Sink) *Bus {
	if b, ok := sink.(*Bus); ok {
		return b
	}
	b := New()
	s := &Subscription{b: b, fn: sink.Emit, direct: true}
	b.direct = []*Subscription{s}
	return b
}

// Emit implements event.Sink. It applies e to the lifecycle state and
// queues e, then an agent.status event for each status e changed, to every
// subscriber; it never waits for a queued subscriber. A usage.update,
// subagent.update or subagent.complete is delivered with the counts the
// reducer holds once it is applied (lifecycle.State.Resolve): one count of
// tool uses and usage, whoever emitted it.
func (b *Bus) Emit(e event.Event) {
	b.mu.Lock()
	changed := b.state.Apply(e) // first, so subscribers see the state e made
	b.state.Resolve(&e)         // the reducer's counts, not the emitter's
	b.enqueue(&e)
	var statuses []directStatus
	for _, r := range changed {
		key := r.ToolCallID
		if key == "" {
			key = r.ID
		}
		moved := b.statuses[key] != r.Status
		if !moved && !b.records {
			continue
		}
		b.statuses[key] = r.Status
		se := lifecycle.StatusEvent(e, r)
		b.enqueueStatus(se, moved)
		if len(b.direct) > 0 {
			statuses = append(statuses, directStatus{se, moved})
		}
	}
	if m, ok := b.state.ChangedTeammate(); ok {
		if b.records {
			// A teammate's whole record, for the views that render records.
			te := lifecycle.TeammateEvent(e, m)
			b.enqueueStatus(te, false)
			if len(b.direct) > 0 {
				statuses = append(statuses, directStatus{te, false})
			}
		}
		if e.Type == event.TeammateStatus {
			b.told[m.Name] = m.Status
		}
		// A status the reducer derived (waiting on its own agents and
		// shells, idle when they end) is told as teammate.status, as the
		// team tells the others.
		if se, ok := derivedMateStatus(e, m, b.told[m.Name]); ok {
			b.enqueue(&se)
			b.told[m.Name] = m.Status
			if len(b.direct) > 0 {
				statuses = append(statuses, directStatus{se, true})
			}
		}
	}
	direct := b.direct
	var ticket uint64
	if len(direct) > 0 {
		ticket = b.tickets
		b.tickets++
	}
	b.mu.Unlock()
	if len(direct) > 0 {
		b.deliverDirect(ticket, direct, e, statuses)
	}
}

// directStatus is an agent.status event for the direct subscribers, and
// whether its status moved (else only Records subscribers get it).
type directStatus struct {
	e     event.Event
	moved bool
}

// enqueueStatus queues agent.status e: for every subscriber when its
// status moved, else (a record changed, not its status) only for the
// Records subscribers. b.mu is held.
func (b *Bus) enqueueStatus(e event.Event, moved bool) {
	if moved {
		b.enqueue(&e)
		return
	}
	var it item
	for _, s := range b.subs {
		if !s.opt.Records {
			continue
		}
		if it.e == nil {
			// A number of its own: Flush and After wait for items by
			// number, and this one comes after its cause.
			b.seq++
			it.seq = b.seq
			it.e, it.sl = b.hold(&e)
		}
		s.enqueue(it)
	}
}

// enqueue gives e the next sequence number and queues it for every
// subscriber; b.mu is held.
func (b *Bus) enqueue(e *event.Event) {
	b.seq++
	if len(b.subs) == 0 {
		return
	}
	it := item{seq: b.seq}
	it.e, it.sl = b.hold(e) // one copy, shared by every queue
	for _, s := range b.subs {
		s.enqueue(it)
	}
}

// deliverDirect calls the direct subscribers once every earlier Emit's
// direct delivery is done.
func (b *Bus) deliverDirect(ticket uint64, direct []*Subscription, e event.Event, statuses []directStatus) {
	b.dmu.Lock()
	defer b.dmu.Unlock()
	for b.served != ticket {
		b.dcond.Wait()
	}
	defer func() {
		b.served++
		b.dcond.Broadcast()
	}()
	for _, s := range direct {
		if s.isStopped() {
			continue
		}
		s.fn(e)
		for _, se := range statuses {
			if se.moved || s.opt.Records {
				s.fn(se.e)
			}
		}
	}
}

// Subscribe adds fn as a Lossless subscriber. The returned func is its
// Close: it waits until fn has handled every event emitted before the
// call, and fn gets nothing after.
func (b *Bus) Subscribe(fn func(event.Event)) (unsubscribe func()) {
	return b.SubscribeWith(fn, Options{}).Close
}

// SubscribeWith adds fn with its own queue, policy and bound. fn runs on
// the subscription's goroutine (one at a time, in bus order), which exists
// while events wait for it, so an idle subscription holds no goroutine.
func (b *Bus) SubscribeWith(fn func(event.Event), opt Options) *Subscription {
	if opt.Bound <= 0 {
		opt.Bound = DefaultBound
	}
	s := &Subscription{b: b, fn: fn, opt: opt, changed: make(chan struct{})}
	if opt.Inline {
		s.direct = true
		b.mu.Lock()
		b.records = b.records || opt.Records
		b.direct = append(b.direct[:len(b.direct):len(b.direct)], s)
		b.mu.Unlock()
		return s
	}
	s.head = getChunk()
	s.tail = s.head
	b.mu.Lock()
	b.records = b.records || opt.Records
	b.subs = append(b.subs[:len(b.subs):len(b.subs)], s)
	b.mu.Unlock()
	return s
}

// remove takes s off the bus; nothing is queued for it afterwards.
func (b *Bus) remove(s *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.subs = without(b.subs, s)
	b.direct = without(b.direct, s)
}

// without is subs less s, a new slice when s was there (Emit may be
// reading the old one).
func without(subs []*Subscription, s *Subscription) []*Subscription {
	for i, x := range subs {
		if x == s {
			out := make([]*Subscription, 0, len(subs)-1)
			return append(append(out, subs[:i]...), subs[i+1:]...)
		}
	}
	return subs
}

// tickets taken so far by emitters with inline subscribers.
func (b *Bus) taken() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tickets
}

// waitInline returns once every inline delivery of the first n tickets is
// done, or ctx ends.
func (b *Bus) waitInline(ctx context.Context, n uint64) error {
	stop := context.AfterFunc(ctx, func() {
		b.dmu.Lock()
		b.dcond.Broadcast()
		b.dmu.Unlock()
	})
	defer stop()
	b.dmu.Lock()
	defer b.dmu.Unlock()
	for b.served < n {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.dcond.Wait()
	}
	return nil
}

// last is the sequence number of the last event emitted.
func (b *Bus) last() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seq
}

// Flush waits until every subscriber has handled every event emitted
// before the call, or ctx ends (its error is returned). A stuck subscriber
// holds Flush until ctx ends: wait on the one subscription you need
// (Subscription.Flush) where another may be slow. No subscriber's callback
// may call it (it would wait for itself).
func (b *Bus) Flush(ctx context.Context) error {
	b.mu.Lock()
	subs, target, tickets := b.subs, b.seq, b.tickets
	b.mu.Unlock()
	for _, s := range subs {
		if err := s.wait(ctx, target); err != nil {
			return err
		}
	}
	return b.waitInline(ctx, tickets)
}

// Close closes every subscription (Subscription.Close: each drains what
// was emitted before the call).
func (b *Bus) Close() {
	b.mu.Lock()
	subs := b.subs
	b.mu.Unlock()
	for _, s := range subs {
		s.Close()
	}
}

// Agents returns the reducer's records in creation order.
func (b *Bus) Agents() []lifecycle.Record {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.Records()
}

// OpenChild reports whether an agent parent started has not yet reported
// its end (lifecycle.State.OpenChild).
func (b *Bus) OpenChild(parent string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.OpenChild(parent)
}

// Agent returns the record of sub-agent id (or of the task call id).
func (b *Bus) Agent(id string) (lifecycle.Record, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.Get(id)
}

// Lead returns the lead's record, once the lead has emitted anything.
func (b *Bus) Lead() (lifecycle.Record, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.Lead()
}

// Usage is agent's usage so far, as the reducer counts it.
func (b *Bus) Usage(agent string) event.Usage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.Usage(agent)
}

// TotalUsage is the run's usage so far: every agent's added up.
func (b *Bus) TotalUsage() event.Usage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.TotalUsage()
}

// ToolUses is the number of tool calls agent has started.
func (b *Bus) ToolUses(agent string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.ToolUses(agent)
}

// Restore raises agent's counts to a resumed session's (tool uses and
// usage so far) without emitting anything.
func (b *Bus) Restore(agent string, toolUses int, u event.Usage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.state.Restore(agent, toolUses, u)
}

// Teammates returns the reducer's teammates in order of first appearance.
func (b *Bus) Teammates() []lifecycle.Teammate {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.Teammates()
}

// Teammate returns the teammate called name.
func (b *Bus) Teammate(name string) (lifecycle.Teammate, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.Teammate(name)
}

// ActiveTeammates counts teammates spawning, working or idle.
func (b *Bus) ActiveTeammates() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.ActiveTeammates()
}

// Unsettled counts what still keeps the run from completing: active
// sub-agents, sessions still closing and active teammates
// (lifecycle.State.Unsettled).
func (b *Bus) Unsettled() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.Unsettled()
}

// Holds reports whether agent id still keeps the run from completing
// (lifecycle.State.Holds): the completion gate asks it of every agent
// the owner registry knows.
func (b *Bus) Holds(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.Holds(id)
}

// Ended reports whether agent id has a final status (lifecycle.State.Ended).
func (b *Bus) Ended(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.Ended(id)
}

// derivedMateStatus is the teammate.status event telling m's status when
// the reducer changed it from m's descendants (waiting while its own
// agents or shells run, idle again when the last ends) on cause, an event
// of another agent; told is the status last told for m.
func derivedMateStatus(cause event.Event, m lifecycle.Teammate, told lifecycle.TeammateStatus) (event.Event, bool) {
	if cause.Type == event.TeammateStatus || m.Status == told || m.Status != lifecycle.MateWaiting && m.Status != lifecycle.MateIdle {
		return event.Event{}, false
	}
	return event.Event{Type: event.TeammateStatus, Time: cause.Time, SessionID: m.SessionID, AgentID: m.AgentID,
		ParentAgentID: event.LeadID, Data: event.TeammateStatusData{Name: m.Name, Role: m.Role, Status: string(m.Status)}}, true
}
