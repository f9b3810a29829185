package backend

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// step is one thing a session tells a TurnTracker.
type step struct {
	op, id, end string
}

func apply(t *TurnTracker[string], s step) {
	switch s.op {
	case "send":
		t.Send()
	case "unsent":
		t.Unsent()
	case "confirm":
		t.Confirm(s.id)
	case "began":
		t.Began(s.id)
	case "ended":
		t.Ended(s.id, s.end)
	case "woke":
		t.Woke()
	case "abort":
		t.Abort(s.end)
	case "reset":
		t.Reset()
	}
}

// took is the end Wait takes at once, "" when none is there.
func took(t *TurnTracker[string], ours bool) string {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	end, _ := t.Wait(ctx, ours, nil)
	return end
}

func TestTurnTrackerTellsRunsTurnsFromTheCLIsOwnAndWhenEachEnded(t *testing.T) {
	for _, c := range []struct {
		name    string
		steps   []step
		pending bool
		ours    string // the end Wait(ours) takes
		auto    string // the end Wait(the CLI's own) takes
	}{
		{name: "Run's turn begins after its prompt and ends",
			steps: []step{{op: "send"}, {op: "began", id: "t1"}, {op: "ended", id: "t1", end: "done"}}, ours: "done"},
		{name: "a turn nobody sent is the CLI's own and makes the session pending",
			steps: []step{{op: "began", id: "t1"}}, pending: true},
		{name: "the CLI's own turn ended before anyone looked is still pending, with its end",
			steps: []step{{op: "began"}, {op: "ended", end: "woke up"}}, pending: true, auto: "woke up"},
		{name: "a background sub-agent's end while idle is pending before the turn begins",
			steps: []step{{op: "woke"}}, pending: true},
		{name: "a background sub-agent's end during Run's turn wakes nothing: the turn carries it",
			steps: []step{{op: "send"}, {op: "began"}, {op: "woke"}, {op: "ended", end: "done"}}, ours: "done"},
		{name: "a prompt sent while idle wakes nothing either",
			steps: []step{{op: "send"}, {op: "woke"}}},
		{name: "busy reported twice is one turn",
			steps: []step{{op: "send"}, {op: "began"}, {op: "began"}, {op: "ended", end: "done"}}, ours: "done"},
		{name: "an idle without a turn under way ends nothing",
			steps: []step{{op: "send"}, {op: "ended", end: "stale"}, {op: "began"}, {op: "ended", end: "done"}}, ours: "done"},
		{name: "the end of another turn id is ignored",
			steps: []step{{op: "send"}, {op: "began", id: "t2"}, {op: "ended", id: "t1", end: "old"}}},
		{name: "the turn taken for Run's while the answer was awaited was the CLI's own (running)",
			steps: []step{{op: "send"}, {op: "began", id: "a"}, {op: "confirm", id: "b"}, {op: "ended", id: "a", end: "auto"},
				{op: "began", id: "b"}, {op: "ended", id: "b", end: "ours"}}, pending: true, ours: "ours", auto: "auto"},
		{name: "the turn taken for Run's was the CLI's own (ended before the answer)",
			steps:   []step{{op: "send"}, {op: "began", id: "a"}, {op: "ended", id: "a", end: "auto"}, {op: "confirm", id: "b"}},
			pending: true, auto: "auto"},
		{name: "a confirmed id makes a later turn of another id the CLI's own",
			steps: []step{{op: "send"}, {op: "began", id: "a"}, {op: "confirm", id: "b"}, {op: "ended", id: "a"},
				{op: "began", id: "c"}}, pending: true},
		{name: "Run's confirmed turn is Run's",
			steps: []step{{op: "send"}, {op: "confirm", id: "b"}, {op: "began", id: "b"}, {op: "ended", id: "b", end: "ours"}}, ours: "ours"},
		{name: "an unsent prompt's turn never comes: the next turn is the CLI's own",
			steps: []step{{op: "send"}, {op: "unsent"}, {op: "began"}}, pending: true},
		{name: "an abort ends Run's turn with the abort's end",
			steps: []step{{op: "send"}, {op: "began"}, {op: "abort", end: "aborted"}}, ours: "aborted"},
		{name: "an abort forgets a turn the CLI was to begin",
			steps: []step{{op: "woke"}, {op: "abort", end: "aborted"}}},
		{name: "a reset forgets the CLI's own turn",
			steps: []step{{op: "began"}, {op: "ended", end: "auto"}, {op: "reset"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := NewTurnTracker[string]()
			for _, s := range c.steps {
				apply(tr, s)
			}
			if got := tr.Pending(); got != c.pending {
				t.Errorf("Pending = %v, want %v", got, c.pending)
			}
			if got := took(tr, true); got != c.ours {
				t.Errorf("Run's end = %q, want %q", got, c.ours)
			}
			if got := took(tr, false); got != c.auto {
				t.Errorf("the CLI's own end = %q, want %q", got, c.auto)
			}
		})
	}
}

func TestTurnTrackerWaitReturnsAtTheEndOrWhenTheCLIGoesAway(t *testing.T) {
	tr := NewTurnTracker[string]()
	tr.Send()
	go func() {
		time.Sleep(5 * time.Millisecond)
		tr.Began("")
		tr.Ended("", "done")
	}()
	if end, ok := tr.Wait(context.Background(), true, nil); !ok || end != "done" {
		t.Fatalf("Wait = %q %v, want done", end, ok)
	}
	gone := make(chan struct{})
	close(gone)
	if _, ok := tr.Wait(context.Background(), true, gone); ok {
		t.Fatal("Wait took an end nobody reported")
	}
	tr.Send()
	tr.Began("")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	tr.Settle(ctx, nil)
	if !tr.Running() {
		t.Fatal("Settle ended a turn")
	}
	tr.Ended("", "x")
	tr.Settle(context.Background(), nil)
	if tr.Running() {
		t.Fatal("a turn still runs after its end")
	}
}

// TestTurnTrackerAnyOrderOfReportsKeepsItsInvariants feeds random orders
// of what a CLI and Run report: every end is taken at most once and by the
// side whose turn it was, Pending holds exactly while a turn of the CLI's
// own is to be carried, and Abort leaves nothing running.
func TestTurnTrackerAnyOrderOfReportsKeepsItsInvariants(t *testing.T) {
	ops := []string{"send", "unsent", "began", "ended", "woke", "abort"}
	for seed := uint64(0); seed < 2000; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		tr := NewTurnTracker[string]()
		// A model of the tracker: whose turn runs, and the ends owed.
		sending, woken := false, false
		running := ""
		var ours, auto []string
		for i := 0; i < 40; i++ {
			s := step{op: ops[r.IntN(len(ops))], end: string(rune('a' + i))}
			apply(tr, s)
			switch s.op {
			case "send":
				sending, ours = true, nil
			case "unsent":
				sending = false
			case "began":
				if running == "" {
					if sending {
						running, sending = "run", false
					} else {
						running, woken = "cli", false
					}
				}
			case "ended":
				switch running {
				case "run":
					ours = []string{s.end}
				case "cli":
					auto = []string{s.end}
				}
				running = ""
			case "woke":
				if running == "" && !sending {
					woken = true
				}
			case "abort":
				switch running {
				case "run":
					ours = []string{s.end}
				case "cli":
					auto = []string{s.end}
				}
				running, sending, woken = "", false, false
			}
			if want := woken || running == "cli" || len(auto) > 0; tr.Pending() != want {
				t.Fatalf("seed %d step %d %v: Pending = %v, want %v", seed, i, s, tr.Pending(), want)
			}
			if want := running != "" || sending; tr.Running() != want {
				t.Fatalf("seed %d step %d %v: Running = %v, want %v", seed, i, s, tr.Running(), want)
			}
			if r.IntN(4) == 0 {
				want := ""
				if len(ours) > 0 {
					want, ours = ours[0], nil
				}
				if got := took(tr, true); got != want {
					t.Fatalf("seed %d step %d: Run's end %q, want %q", seed, i, got, want)
				}
			}
			if r.IntN(4) == 0 {
				want := ""
				if len(auto) > 0 {
					want, auto = auto[0], nil
				}
				if got := took(tr, false); got != want {
					t.Fatalf("seed %d step %d: the CLI's own end %q, want %q", seed, i, got, want)
				}
			}
		}
	}
}
