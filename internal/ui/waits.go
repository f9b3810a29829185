package ui

import (
	"fmt"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// waits are the things the user is waiting on that the transcript does not
// show: a provider retry counting down, the ctrl+c quit window, a tool held
// for approval. They are kept apart from the event routing so the status
// line can say what the wait is for.
type waits struct {
	// retries is the pending retry of each agent that has one, by agent id.
	retries map[string]retryNotice
	// hintUntil is when the notice above the input expires (zero: never).
	hintUntil time.Time
}

// retryNotice is one agent's announced retry.
type retryNotice struct {
	next time.Time // when the next attempt starts
	data event.RetryData
}

// observeWaits follows a batch of events (already applied to the
// transcript): a retry starts its countdown; the agent's next sign of life
// (text, a tool call, the end or failure of its turn) ends it, as do an
// interrupt and a reset. A lead tool call asking for approval is marked
// waiting until the approval is decided.
func (m *Model) observeWaits(evs []event.Event) {
	for _, e := range evs {
		switch e.Type {
		case event.Retry:
			d, ok := event.Payload[event.RetryData](e.Data)
			if !ok {
				continue
			}
			start := e.Time
			if start.IsZero() {
				start = m.now
			}
			if m.waits.retries == nil {
				m.waits.retries = map[string]retryNotice{}
			}
			m.waits.retries[agentKey(e)] = retryNotice{next: start.Add(time.Duration(d.DelayMS) * time.Millisecond), data: d}
		case event.MessageDelta:
			if d, ok := event.Payload[event.MessageDeltaData](e.Data); ok && !d.Discard {
				delete(m.waits.retries, agentKey(e))
			}
		case event.MessageComplete, event.ToolStart, event.Error, event.TurnEnd, event.SubagentComplete:
			delete(m.waits.retries, agentKey(e))
		case event.Interrupt, event.Reset:
			clear(m.waits.retries)
		case event.PermissionRequested, event.PermissionResolved:
			if t := m.tools[e.ToolCallID]; t != nil && isLead(e) {
				t.waiting = e.Type == event.PermissionRequested
				t.version++
			}
		}
	}
}

// agentKey names the agent of an event, the lead for none.
func agentKey(e event.Event) string {
	if isLead(e) {
		return event.LeadID
	}
	return e.AgentID
}

// expireWaits drops what the clock has ended: countdowns whose attempt has
// started, and the quit hint once its window is over.
func (m *Model) expireWaits() {
	for id, r := range m.waits.retries {
		if !m.now.Before(r.next) {
			delete(m.waits.retries, id)
		}
	}
	if !m.waits.hintUntil.IsZero() && !m.now.Before(m.waits.hintUntil) {
		m.hint, m.waits.hintUntil = "", time.Time{}
	}
}

// timed reports whether something on screen changes with the clock alone.
func (m *Model) timed() bool {
	return len(m.waits.retries) > 0 || !m.waits.hintUntil.IsZero()
}

// retryText is the status line's retry notice: the lead's countdown, else
// the latest sub-agent's, named ("explore-1 retrying in 3s… (attempt 2/5 ·
// 529 overloaded)"); empty when nothing waits to retry.
func (m *Model) retryText() string {
	id, r, ok := event.LeadID, m.waits.retries[event.LeadID], false
	if _, ok = m.waits.retries[event.LeadID]; !ok {
		for aid, n := range m.waits.retries {
			if !ok || n.next.After(r.next) || (n.next.Equal(r.next) && aid < id) {
				id, r, ok = aid, n, true
			}
		}
	}
	if !ok {
		return ""
	}
	left := r.next.Sub(m.now)
	secs := int((left + time.Second - 1) / time.Second)
	what := "Retrying"
	if id != event.LeadID {
		what = id + " retrying"
	}
	s := fmt.Sprintf("%s in %ds… (attempt %d/%d", what, max(secs, 1), r.data.Attempt, r.data.MaxAttempts)
	if r.data.Reason != "" {
		s += " · " + r.data.Reason
	}
	return s + ")"
}
