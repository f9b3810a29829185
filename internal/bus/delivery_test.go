package bus

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// recorder keeps what a subscriber was handed, safe to read from the test.
type recorder struct {
	mu  sync.Mutex
	got []event.Event
}

func (r *recorder) Emit(e event.Event) {
	r.mu.Lock()
	r.got = append(r.got, e)
	r.mu.Unlock()
}

func (r *recorder) events() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event(nil), r.got...)
}

// numbered is event n of emitter w: a message.delta whose text says both.
func numbered(w, n int) event.Event {
	return event.Event{Type: event.MessageDelta, Time: time.Unix(int64(n), 0), AgentID: fmt.Sprintf("agent-%d", w),
		Data: event.MessageDeltaData{Text: fmt.Sprint(n)}}
}

// blocker is a subscriber stuck in its callback until release.
type blocker struct {
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newBlocker() *blocker {
	return &blocker{entered: make(chan struct{}), release: make(chan struct{})}
}

func (b *blocker) Emit(event.Event) {
	b.once.Do(func() { close(b.entered) })
	<-b.release
}

func flushWithin(t *testing.T, s *Subscription, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := s.Flush(ctx); err != nil {
		t.Fatalf("subscription %q never caught up: %v", s.opt.Name, err)
	}
}

func TestASubscriberStuckForeverDelaysNeitherTheEmittersNorAnyOtherSubscriber(t *testing.T) {
	b := New()
	stuck := newBlocker()
	stuckSub := b.SubscribeWith(stuck.Emit, Options{Name: "stuck"})
	defer close(stuck.release)
	defer stuckSub.Stop()
	var others [3]recorder
	var subs [3]*Subscription
	for i := range others {
		subs[i] = b.SubscribeWith(others[i].Emit, Options{Name: fmt.Sprint("other-", i)})
	}

	const emitters, each = 4, 500
	emitted := make(chan struct{})
	go func() {
		defer close(emitted)
		var wg sync.WaitGroup
		for w := range emitters {
			wg.Go(func() {
				for n := range each {
					b.Emit(numbered(w, n))
				}
			})
		}
		wg.Wait()
	}()
	select {
	case <-emitted:
	case <-time.After(10 * time.Second):
		t.Fatal("Emit blocked behind a stuck subscriber")
	}
	<-stuck.entered // it really is stuck, in its first event
	// The reducer's state does not wait for delivery either.
	b.Emit(event.Event{Type: event.ToolStart, Time: time.Unix(1, 0), AgentID: "lead", ToolCallID: "c1",
		Data: event.ToolStartData{Name: "task", Input: json.RawMessage(`{"description":"d","prompt":"p"}`)}})
	if len(b.Agents()) != 1 {
		t.Fatalf("state after Emit returned: %+v", b.Agents())
	}
	for i, s := range subs {
		flushWithin(t, s, 10*time.Second)
		got := others[i].events()
		if len(got) != emitters*each+2 { // + the tool.start and its agent.status
			t.Fatalf("subscriber %d got %d events, want %d", i, len(got), emitters*each+2)
		}
		next := map[string]int{}
		for _, e := range got[:emitters*each] {
			n := e.Data.(event.MessageDeltaData).Text
			if n != fmt.Sprint(next[e.AgentID]) {
				t.Fatalf("subscriber %d: %s's event %s came when %d was due", i, e.AgentID, n, next[e.AgentID])
			}
			next[e.AgentID]++
		}
	}
	if st := stuckSub.Stats(); st.HighWater < emitters*each {
		t.Fatalf("the stuck subscriber's queue peaked at %d; it holds the whole backlog (%d)", st.HighWater, emitters*each)
	}
}

func TestEverySubscriberSeesTheOneBusOrderUnderConcurrentEmitters(t *testing.T) {
	b := New()
	var recs [3]recorder
	subs := make([]*Subscription, len(recs))
	for i := range recs {
		subs[i] = b.SubscribeWith(recs[i].Emit, Options{Bound: 8}) // far past its bound: Lossless keeps all
	}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for n := range 300 {
				b.Emit(numbered(w, n))
			}
		})
	}
	wg.Wait()
	for _, s := range subs {
		flushWithin(t, s, 10*time.Second)
	}
	first := recs[0].events()
	if len(first) != 6*300 {
		t.Fatalf("got %d events, want %d", len(first), 6*300)
	}
	for i := 1; i < len(recs); i++ {
		got := recs[i].events()
		for k := range first {
			if got[k].AgentID != first[k].AgentID || got[k].Data != first[k].Data {
				t.Fatalf("subscriber %d's event %d is %s %v; subscriber 0 had %s %v", i, k,
					got[k].AgentID, got[k].Data, first[k].AgentID, first[k].Data)
			}
		}
	}
}

// slow is a subscriber that takes a while over each event.
type slow struct {
	recorder
	per time.Duration
}

func (s *slow) Emit(e event.Event) {
	time.Sleep(s.per)
	s.recorder.Emit(e)
}

func TestFlushReturnsOnceEveryEventEmittedBeforeItWasHandled(t *testing.T) {
	b := New()
	s := &slow{per: time.Millisecond}
	sub := b.SubscribeWith(s.Emit, Options{})
	for n := range 40 {
		b.Emit(numbered(0, n))
	}
	if err := sub.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(s.events()); got != 40 {
		t.Fatalf("after Flush the subscriber had %d of 40 events", got)
	}
	for n := 40; n < 80; n++ {
		b.Emit(numbered(0, n))
	}
	if err := b.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(s.events()); got != 80 {
		t.Fatalf("after Bus.Flush the subscriber had %d of 80 events", got)
	}
	sub.Close()
}

func TestFlushOfAStuckSubscriberEndsWithItsContext(t *testing.T) {
	b := New()
	stuck := newBlocker()
	sub := b.SubscribeWith(stuck.Emit, Options{})
	defer close(stuck.release)
	defer sub.Stop()
	b.Emit(numbered(0, 0))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := b.Flush(ctx); err != context.DeadlineExceeded {
		t.Fatalf("Flush of a stuck subscriber returned %v, want the context's deadline", err)
	}
}

func TestCloseDeliversWhatCameBeforeItAndNothingAfter(t *testing.T) {
	b := New()
	s := &slow{per: 200 * time.Microsecond}
	unsubscribe := b.Subscribe(s.Emit)
	for n := range 50 {
		b.Emit(numbered(0, n))
	}
	unsubscribe()
	if got := len(s.events()); got != 50 {
		t.Fatalf("after Close the subscriber had %d of 50 events", got)
	}
	b.Emit(numbered(0, 50))
	time.Sleep(10 * time.Millisecond)
	if got := len(s.events()); got != 50 {
		t.Fatalf("an event emitted after Close was delivered (%d events)", got)
	}
}

func TestStopDiscardsTheBacklog(t *testing.T) {
	b := New()
	stuck := newBlocker()
	sub := b.SubscribeWith(stuck.Emit, Options{})
	for n := range 10 {
		b.Emit(numbered(0, n))
	}
	<-stuck.entered
	sub.Stop()
	close(stuck.release) // the call in progress ends; the other 9 are dropped
	if err := sub.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestStreamJSONStyleSubscriberGetsEachEventOnlyAfterTheStoreHandledIt(t *testing.T) {
	b := New()
	var storeMu sync.Mutex
	stored := 0
	store := b.SubscribeWith(func(event.Event) {
		time.Sleep(100 * time.Microsecond) // a store slower than its follower
		storeMu.Lock()
		stored++
		storeMu.Unlock()
	}, Options{Name: "store"})
	var behind []int
	n := 0
	out := b.SubscribeWith(func(event.Event) {
		n++
		storeMu.Lock()
		if stored < n {
			behind = append(behind, n)
		}
		storeMu.Unlock()
	}, Options{Name: "stream-json", After: store})
	for k := range 100 {
		b.Emit(numbered(0, k))
	}
	flushWithin(t, out, 10*time.Second)
	if n != 100 || len(behind) > 0 {
		t.Fatalf("the follower got %d events; it got these before the store had them: %v", n, behind)
	}
	store.Close()
	out.Close()
}

// spawn, update and finish are the events of one background sub-agent.
func spawn(id, call string) []event.Event {
	at := time.Unix(10, 0)
	in, _ := json.Marshal(map[string]string{"description": "d " + id, "prompt": "p", "mode": "background"})
	return []event.Event{
		{Type: event.ToolStart, Time: at, AgentID: "lead", ToolCallID: call, Data: event.ToolStartData{Name: "task", Input: in}},
		{Type: event.SubagentStart, Time: at, AgentID: id, ParentAgentID: "lead", ToolCallID: call, Data: event.SubagentStartData{AgentType: "general-purpose", Background: true}},
	}
}

// toolStart is a tool call of agent id: one tool use, as the reducer counts.
func toolStart(id, call string) event.Event {
	return event.Event{Type: event.ToolStart, Time: time.Unix(11, 0), AgentID: id, ToolCallID: call,
		Data: event.ToolStartData{Name: "bash"}}
}

func update(id, call string, uses int) event.Event {
	return event.Event{Type: event.SubagentUpdate, Time: time.Unix(11, 0), AgentID: id, ToolCallID: call,
		Data: event.SubagentUpdateData{ToolUses: uses, CurrentTool: "bash"}}
}

func finish(id, call string) event.Event {
	return event.Event{Type: event.SubagentComplete, Time: time.Unix(12, 0), AgentID: id, ToolCallID: call,
		Data: event.SubagentCompleteData{Success: true, Result: "r " + id}}
}

// view is what a Coalesce view keeps: the last record of each agent, as
// agent.status carries it.
func view(evs []event.Event) map[string]lifecycle.Record {
	rows := map[string]lifecycle.Record{}
	for _, e := range evs {
		if d, ok := e.Data.(lifecycle.StatusData); ok {
			rows[d.Agent.ID] = d.Agent
		}
	}
	return rows
}

func TestASlowViewDropsDeltasThenResyncsFromTheReducerAndLosesNoStatusChange(t *testing.T) {
	b := New()
	gate := make(chan struct{})
	var rec recorder
	var lossless recorder
	all := b.SubscribeWith(lossless.Emit, Options{Name: "store"})
	v := b.SubscribeWith(func(e event.Event) { <-gate; rec.Emit(e) }, Options{Name: "view", Policy: Coalesce, Bound: 4})

	var sent []event.Event
	emit := func(e event.Event) { sent = append(sent, e); b.Emit(e) }
	for _, e := range spawn("general-purpose-1", "c1") {
		emit(e)
	}
	for n := range 50 {
		emit(numbered(0, n))
		if n == 20 {
			emit(toolStart("general-purpose-1", "t1"))
			emit(update("general-purpose-1", "c1", 1))
			for _, e := range spawn("general-purpose-2", "c2") {
				emit(e)
			}
		}
	}
	emit(finish("general-purpose-1", "c1"))
	emit(event.Event{Type: event.MessageDelta, AgentID: "lead", Data: event.MessageDeltaData{Discard: true}})
	close(gate)
	flushWithin(t, v, 10*time.Second)
	flushWithin(t, all, 10*time.Second)

	got := rec.events()
	st := v.Stats()
	if st.Dropped == 0 {
		t.Fatalf("a view held at bound 4 dropped nothing (high water %d)", st.HighWater)
	}
	deltas := 0
	for _, e := range got {
		if d, ok := e.Data.(event.MessageDeltaData); ok && !d.Discard {
			deltas++
		}
	}
	if uint64(deltas)+st.Dropped != 50 {
		t.Fatalf("%d deltas delivered + %d dropped != 50 emitted", deltas, st.Dropped)
	}
	// Every event that is not a delta, in order: nothing else is dropped,
	// the Discard delta included.
	var want, kept []event.Type
	for _, e := range lossless.events() {
		if d, ok := e.Data.(event.MessageDeltaData); !ok || d.Discard {
			if e.Type != event.AgentStatus {
				want = append(want, e.Type)
			}
		}
	}
	for _, e := range got {
		if d, ok := e.Data.(event.MessageDeltaData); !ok || d.Discard {
			if e.Type != event.AgentStatus {
				kept = append(kept, e.Type)
			}
		}
	}
	if fmt.Sprint(kept) != fmt.Sprint(want) {
		t.Fatalf("the view's other events %v, want %v", kept, want)
	}
	// Every status change the store saw, the view saw, in the same order
	// (the resync's records repeat some; none is missing).
	var changes []string
	for _, e := range lossless.events() {
		if d, ok := e.Data.(lifecycle.StatusData); ok {
			changes = append(changes, d.Agent.ID+":"+string(d.Status))
		}
	}
	i := 0
	for _, e := range got {
		if d, ok := e.Data.(lifecycle.StatusData); ok && i < len(changes) && d.Agent.ID+":"+string(d.Status) == changes[i] {
			i++
		}
	}
	if i != len(changes) {
		t.Fatalf("the view missed status change %q of %q", changes[i], changes)
	}
	// The resync carried the reducer's records: the view rebuilt from
	// agent.status alone equals the bus's state.
	rows := view(got)
	for _, r := range b.Agents() {
		if fmt.Sprint(rows[r.ID]) != fmt.Sprint(r) {
			t.Fatalf("the view's row of %s is %+v; the reducer's record is %+v", r.ID, rows[r.ID], r)
		}
	}
	// The resync after the update is the only agent.status that can say
	// general-purpose-1 runs with one tool use: its status never changed
	// there.
	resynced := false
	for _, e := range got {
		if d, ok := e.Data.(lifecycle.StatusData); ok && d.Agent.ID == "general-purpose-1" &&
			d.Status == lifecycle.Background && d.Agent.ToolUses == 1 {
			resynced = true
		}
	}
	if !resynced {
		t.Fatalf("no resync carried the record as the reducer had it after the update: %+v", got)
	}
	all.Close()
	v.Close()
}

func TestAnInlineSubscriberHasEachEventWhenEmitReturnsInBusOrderOutsideTheLock(t *testing.T) {
	b := New()
	var rec recorder
	var sawState []int
	inline := b.SubscribeWith(func(e event.Event) {
		rec.Emit(e)
		sawState = append(sawState, len(b.Agents())) // would deadlock under the bus's lock
	}, Options{Inline: true})
	for _, e := range spawn("general-purpose-1", "c1") {
		b.Emit(e)
		if got := rec.events(); got[len(got)-1].Type != e.Type && got[len(got)-1].Type != event.AgentStatus {
			t.Fatalf("after Emit(%s) the inline subscriber's last event is %s", e.Type, got[len(got)-1].Type)
		}
	}
	if len(rec.events()) != 3 || sawState[0] != 1 {
		t.Fatalf("inline subscriber got %d events (want tool.start, agent.status, subagent.start), state %v", len(rec.events()), sawState)
	}
	inline.Close()
	b.Emit(finish("general-purpose-1", "c1"))
	if len(rec.events()) != 3 {
		t.Fatal("an inline subscriber got an event after Close")
	}
	var wg sync.WaitGroup
	var order recorder
	o := b.SubscribeWith(order.Emit, Options{Inline: true})
	for w := range 4 {
		wg.Go(func() {
			for n := range 200 {
				b.Emit(numbered(w, n))
			}
		})
	}
	wg.Wait()
	if err := b.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	next := map[string]int{}
	for _, e := range order.events() {
		n := e.Data.(event.MessageDeltaData).Text
		if n != fmt.Sprint(next[e.AgentID]) {
			t.Fatalf("%s's event %s came when %d was due", e.AgentID, n, next[e.AgentID])
		}
		next[e.AgentID]++
	}
	o.Close()
}
