package observe

import (
	"fmt"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/redact"
)

// SpanSink receives agent spans, in order, from one goroutine.
type SpanSink interface {
	Started(Span) error
	Ended(Span) error
}

// Flusher is a SpanSink that holds what it was given until Flush.
type Flusher interface {
	Flush() error
}

// flushDelay is how long after a span the Observer flushes its sinks: long
// enough to keep the disk off a run's start (the first model request goes
// out meanwhile), short enough that a crash loses little.
const flushDelay = 200 * time.Millisecond

// Subscriber is where the events come from, and whose reducer counts
// them (a *bus.Bus).
type Subscriber interface {
	Subscribe(fn func(event.Event)) (unsubscribe func())
	Reducer
}

// Observer feeds a bus's events through a Tracker to its sinks. The bus's
// subscriber only appends the event to a queue: the bus never waits for a
// file or an exporter. One goroutine does the rest until Close. Every span
// goes through the Observer's Redactor before any sink sees it, so neither
// the lifecycle log nor the OpenTelemetry export holds a secret.
type Observer struct {
	sinks []SpanSink
	rd    Reducer
	red   *redact.Redactor
	now   func() time.Time
	unsub func()
	// calls: a sink takes calls (CallSink), so tool ends are queued too.
	calls bool

	mu     sync.Mutex
	queue  []event.Event
	closed bool
	wake   chan struct{}
	done   chan struct{}
	err    error // the first sink error
}

// Watch starts observing b. now gives the time the run ends at Close; red
// masks the secrets in the spans' text (nil: key-shaped text only).
func Watch(b Subscriber, now func() time.Time, red *redact.Redactor, sinks ...SpanSink) *Observer {
	o := &Observer{sinks: sinks, rd: b, now: now, red: red, wake: make(chan struct{}, 1), done: make(chan struct{})}
	for _, k := range sinks {
		if _, ok := k.(CallSink); ok {
			o.calls = true
		}
	}
	o.unsub = b.Subscribe(o.push)
	go o.loop()
	return o
}

// push queues e when the tracker looks at its type; it never blocks on
// anything but the queue's own lock.
func (o *Observer) push(e event.Event) {
	if !Relevant(e.Type) && !(o.calls && callRelevant(e.Type)) {
		return
	}
	o.mu.Lock()
	if !o.closed {
		o.queue = append(o.queue, e)
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

func (o *Observer) loop() {
	defer close(o.done)
	t := NewTracker(o.rd)
	ct := newCallTracker()
	var batch []event.Event
	var flush <-chan time.Time
	var timer *time.Timer
	for {
		select {
		case <-o.wake:
		case <-flush:
			o.flush()
			flush = nil
			continue
		}
		o.mu.Lock()
		batch, o.queue = o.queue, batch[:0]
		closed := o.closed
		o.mu.Unlock()
		sent := false
		for _, e := range batch {
			started, ended := t.Apply(e)
			o.send(started, ended)
			sent = sent || len(started)+len(ended) > 0
			if o.calls {
				// After the agent's span opened: the call goes under it.
				if c, ok := ct.apply(e); ok {
					o.sendCall(c)
				}
			}
		}
		clear(batch)
		if closed {
			o.send(nil, t.Close(o.now()))
			if timer != nil {
				timer.Stop()
			}
			o.flush()
			return
		}
		if sent && flush == nil {
			timer = time.NewTimer(flushDelay)
			flush = timer.C
		}
	}
}

func (o *Observer) flush() {
	for _, k := range o.sinks {
		if f, ok := k.(Flusher); ok {
			o.keep(f.Flush())
		}
	}
}

func (o *Observer) send(started, ended []Span) {
	for _, s := range started {
		s = o.redact(s)
		for _, k := range o.sinks {
			o.keep(k.Started(s))
		}
	}
	for _, s := range ended {
		s = o.redact(s)
		for _, k := range o.sinks {
			o.keep(k.Ended(s))
		}
	}
}

func (o *Observer) sendCall(c Call) {
	for _, f := range []*string{&c.Error, &c.Name, &c.AgentID, &c.ID} {
		*f = o.red.String(*f)
	}
	for _, k := range o.sinks {
		if cs, ok := k.(CallSink); ok {
			o.keep(cs.Call(c))
		}
	}
}

// redact masks the secrets in s's text: its error (a provider's message
// may quote a key), and the names a model or a user chose.
func (o *Observer) redact(s Span) Span {
	for _, f := range []*string{&s.Error, &s.Type, &s.Model, &s.AgentID, &s.ParentID, &s.Backend} {
		*f = o.red.String(*f)
	}
	return s
}

func (o *Observer) keep(err error) {
	if err != nil && o.err == nil {
		o.err = err
	}
}

// Close stops listening, reports what is still queued, ends the spans
// still open (the lead's among them), flushes the sinks and returns the
// first error a sink reported. It does not close the sinks.
func (o *Observer) Close() error {
	o.unsub()
	o.mu.Lock()
	already := o.closed
	o.closed = true
	o.mu.Unlock()
	if !already {
		select {
		case o.wake <- struct{}{}:
		default:
		}
	}
	<-o.done
	if o.err != nil {
		return fmt.Errorf("observe: %w", o.err)
	}
	return nil
}
