package backend

import (
	"context"
	"sync"
)

// TurnTracker is the lead-turn state machine the CLI sessions share. A
// lead turn is Run's (it sent a prompt) or the CLI's own (it began one by
// itself, with a background sub-agent's result); Run carries a turn of the
// CLI's own to its end before it sends, and then waits for the end of its
// own. The session tells the tracker what the CLI reported (Began, Ended,
// Woke) and what Run did (Send, Confirm); Pending and Wait read it. E is
// what the session keeps of a turn's end. Safe for concurrent use.
type TurnTracker[E any] struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every change

	sending bool   // Run sent a prompt whose turn has not begun
	ourID   string // the CLI's id of Run's turn, once known (Confirm)
	run     owner  // whose turn runs
	runID   string // its id ("" when the CLI names none)
	woken   bool   // the CLI will begin a turn of its own
	ourEnd  *E     // Run's turn ended, not yet taken
	endID   string // ourEnd's turn id
	autoEnd *E     // a turn of the CLI's own ended, not yet taken
}

type owner int

const (
	nobody owner = iota
	run          // Run's turn
	cli          // the CLI's own
)

// NewTurnTracker returns a tracker with no turn.
func NewTurnTracker[E any]() *TurnTracker[E] {
	return &TurnTracker[E]{changed: make(chan struct{})}
}

// changedLocked wakes the waiters; t.mu is held.
func (t *TurnTracker[E]) changedLocked() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// Send marks a prompt Run is about to send: the next turn to begin is
// Run's (unless Confirm names another).
func (t *TurnTracker[E]) Send() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sending, t.ourID, t.ourEnd = true, "", nil
}

// Unsent withdraws a Send whose prompt the CLI did not take.
func (t *TurnTracker[E]) Unsent() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sending = false
}

// Confirm names Run's turn: the CLI answered the prompt with turn id. A
// turn taken for Run's that is not id was the CLI's own.
func (t *TurnTracker[E]) Confirm(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ourID = id
	switch {
	case t.run == run && t.runID != "" && t.runID != id:
		t.run = cli // Run's is still to begin
	case t.ourEnd != nil && t.endID != "" && t.endID != id:
		// The turn taken for Run's ended before the answer came: it was
		// the CLI's own, and Run's is still to begin.
		t.autoEnd, t.ourEnd = t.ourEnd, nil
	default:
		return
	}
	t.changedLocked()
}

// Began reports that the CLI began lead turn id ("" when it names none):
// Run's when its id was confirmed or a prompt awaits its turn, else the
// CLI's own. A turn beginning while one runs is the same turn (a CLI that
// reports busy twice); Began then reports false.
func (t *TurnTracker[E]) Began(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.run != nobody {
		return false
	}
	switch {
	case id != "" && id == t.ourID, t.sending && (id == "" || t.ourID == ""):
		t.run, t.sending = run, false
	default:
		t.run, t.woken = cli, false
	}
	t.runID = id
	t.changedLocked()
	return true
}

// Ended reports that the lead turn under way ended with end (id, when not
// empty, names it: the end of another turn is ignored). With no turn under
// way it reports false and does nothing.
func (t *TurnTracker[E]) Ended(id string, end E) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.run == nobody || (id != "" && t.runID != "" && id != t.runID) {
		return false
	}
	if t.run == run {
		t.ourEnd, t.endID = &end, t.runID
	} else {
		t.autoEnd = &end
	}
	t.run, t.runID = nobody, ""
	t.changedLocked()
	return true
}

// Woke reports that the CLI will begin a turn of its own (a background
// sub-agent ended while the lead was idle): the session is pending at
// once, before the turn begins. It reports false, doing nothing, when a
// turn runs or a prompt awaits its turn (which carries the result).
func (t *TurnTracker[E]) Woke() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.run != nobody || t.sending {
		return false
	}
	t.woken = true
	t.changedLocked()
	return true
}

// Abort ends the turn under way with end (the CLI will report nothing
// more: it was interrupted, or the session closes) and forgets a turn the
// CLI was to begin.
func (t *TurnTracker[E]) Abort(end E) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.woken, t.sending = false, false
	switch t.run {
	case run:
		t.ourEnd = &end
	case cli:
		t.autoEnd = &end
	}
	t.run, t.runID = nobody, ""
	t.changedLocked()
}

// Reset forgets every turn: a new conversation starts.
func (t *TurnTracker[E]) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sending, t.ourID, t.run, t.runID, t.woken, t.ourEnd, t.autoEnd = false, "", nobody, "", false, nil, nil
	t.changedLocked()
}

// Pending reports a turn of the CLI's own that no Run has carried: to
// begin, under way, or ended.
func (t *TurnTracker[E]) Pending() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.woken || t.run == cli || t.autoEnd != nil
}

// Running reports whether a lead turn is under way, or a prompt awaits
// its turn.
func (t *TurnTracker[E]) Running() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.run != nobody || t.sending
}

// Wait takes the end of Run's turn (ours) or of the CLI's own, waiting
// for it. ok is false when ctx ended or gone was closed first.
func (t *TurnTracker[E]) Wait(ctx context.Context, ours bool, gone <-chan struct{}) (end E, ok bool) {
	for {
		t.mu.Lock()
		slot := &t.autoEnd
		if ours {
			slot = &t.ourEnd
		}
		e, changed := *slot, t.changed
		*slot = nil
		t.mu.Unlock()
		if e != nil {
			return *e, true
		}
		select {
		case <-changed:
		case <-gone:
			return end, false
		case <-ctx.Done():
			return end, false
		}
	}
}

// Settle waits until no lead turn is under way (an interrupted turn's
// end), or ctx ends or gone is closed.
func (t *TurnTracker[E]) Settle(ctx context.Context, gone <-chan struct{}) {
	for {
		t.mu.Lock()
		busy, changed := t.run != nobody, t.changed
		t.mu.Unlock()
		if !busy {
			return
		}
		select {
		case <-changed:
		case <-gone:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Current is the id of the lead turn under way ("" when none runs or the
// CLI named none).
func (t *TurnTracker[E]) Current() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.runID
}
