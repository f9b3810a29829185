package bus

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// randomRun draws a run's events: agents spawned, updated and finished in
// any order, deltas between, now and then an interrupt.
func randomRun(t *rapid.T) []event.Event {
	var evs []event.Event
	started := 0
	for i, n := 0, rapid.IntRange(1, 60).Draw(t, "len"); i < n; i++ {
		switch rapid.IntRange(0, 5).Draw(t, "kind") {
		case 0:
			started++
			evs = append(evs, spawn(fmt.Sprint("general-purpose-", started), fmt.Sprint("c", started))...)
		case 1:
			if started > 0 {
				k := rapid.IntRange(1, started).Draw(t, "agent")
				evs = append(evs, update(fmt.Sprint("general-purpose-", k), fmt.Sprint("c", k), i))
			}
		case 2:
			if started > 0 {
				k := rapid.IntRange(1, started).Draw(t, "agent")
				evs = append(evs, finish(fmt.Sprint("general-purpose-", k), fmt.Sprint("c", k)))
			}
		case 3:
			if rapid.IntRange(0, 9).Draw(t, "interrupt") == 0 {
				evs = append(evs, event.Event{Type: event.Interrupt, Time: time.Unix(13, 0), AgentID: "lead"})
			}
		default:
			evs = append(evs, numbered(0, i))
		}
	}
	return evs
}

// kept is what a Coalesce view must get whatever it drops: every event but
// deltas and agent.status (a resync adds agent.status), in order.
func kept(evs []event.Event) string {
	var out []string
	for _, e := range evs {
		if e.Type != event.MessageDelta && e.Type != event.AgentStatus {
			out = append(out, string(e.Type)+"/"+e.AgentID)
		}
	}
	return fmt.Sprint(out)
}

func TestPropertyLosslessSubscribersAgreeAndACoalesceViewEndsOnTheReducersState(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		evs := randomRun(rt)
		b := New()
		var a, c, v recorder
		sa := b.SubscribeWith(a.Emit, Options{Bound: 1})
		sc := b.SubscribeWith(c.Emit, Options{})
		pause := rapid.IntRange(0, 50).Draw(rt, "pause") // µs the view takes per event
		sv := b.SubscribeWith(func(e event.Event) {
			time.Sleep(time.Duration(pause) * time.Microsecond)
			v.Emit(e)
		}, Options{Policy: Coalesce, Bound: rapid.IntRange(1, 4).Draw(rt, "bound")})
		// Two emitters split the run: the bus order is whatever they make
		// it, and every subscriber sees that one order.
		split := rapid.IntRange(0, len(evs)).Draw(rt, "split")
		var wg sync.WaitGroup
		wg.Go(func() {
			for _, e := range evs[:split] {
				b.Emit(e)
			}
		})
		for _, e := range evs[split:] {
			b.Emit(e)
		}
		wg.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Flush(ctx); err != nil {
			rt.Fatal(err)
		}
		defer b.Close()
		ae, ce, ve := a.events(), c.events(), v.events()
		if len(ae) != len(ce) {
			rt.Fatalf("two Lossless subscribers got %d and %d events", len(ae), len(ce))
		}
		for i := range ae {
			if ae[i].Type != ce[i].Type || ae[i].AgentID != ce[i].AgentID || fmt.Sprint(ae[i].Data) != fmt.Sprint(ce[i].Data) {
				rt.Fatalf("event %d: %v vs %v", i, ae[i], ce[i])
			}
		}
		if len(ae) < len(evs) {
			rt.Fatalf("a Lossless subscriber got %d of %d events", len(ae), len(evs))
		}
		if kept(ve) != kept(ae) {
			rt.Fatalf("the view's events %s, want %s", kept(ve), kept(ae))
		}
		// No status change is lost: the Lossless stream's changes are a
		// subsequence of the view's (a resync repeats some), and every row
		// ends in the status the Lossless subscriber ends with.
		var changes []string
		for _, e := range ae {
			if d, ok := e.Data.(lifecycle.StatusData); ok {
				changes = append(changes, d.Agent.ID+":"+string(d.Status))
			}
		}
		i := 0
		for _, e := range ve {
			if d, ok := e.Data.(lifecycle.StatusData); ok && i < len(changes) && d.Agent.ID+":"+string(d.Status) == changes[i] {
				i++
			}
		}
		if i != len(changes) {
			rt.Fatalf("the view missed status change %s of %v", changes[i], changes)
		}
		rows, want := view(ve), view(ae)
		for id, r := range want {
			if rows[id].Status != r.Status {
				rt.Fatalf("the view's row of %s ends %s; the Lossless one %s", id, rows[id].Status, r.Status)
			}
		}
		if sv.Stats().Dropped > 0 && sa.Stats().HighWater == 0 {
			rt.Fatal("no high-water mark recorded")
		}
		_ = sc
	})
}
