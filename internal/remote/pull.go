package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// nextSubject is where a pull for the workers' tasks goes.
const nextSubject = "$JS.API.CONSUMER.MSG.NEXT." + Stream + "." + Consumer

// pullWait is how long one pull waits at the server for tasks: an idle
// worker makes one pull a second.
const pullWait = time.Second

// pull runs tasks on up to slots at once until ctx ends, then waits for
// the running ones. One pull at a time asks for as many tasks as there
// are free slots, so a task is fetched only when a slot is free (none
// waits in a busy worker's buffer), and a worker holds one of the
// consumer's waiting pulls (512 by default), not one per slot: workers of
// 250 slots each passed that limit and saw their surplus pulls fail,
// again and again, while idle. A worker that leaves a task for
// another (it lacks the lead's commit) ends its pull and makes none for
// twice the task's delay (see leave): a pull keeps its place in the
// server's line, so it would otherwise be first in line for the task
// again, attempt after attempt, while the others' slots wait.
func (w *Worker) pull(ctx context.Context, slots int) {
	free := make(chan struct{}, slots) // a token per free slot
	for range slots {
		free <- struct{}{}
	}
	var running sync.WaitGroup
	defer running.Wait()
	for ctx.Err() == nil {
		select { // a leave signalled after the last pull ended: the wait below covers it
		case <-w.left:
		default:
		}
		if wait := time.Until(w.pausedUntil()); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			continue
		}
		n := 0
		select { // at least one free slot, then every other free one
		case <-ctx.Done():
			return
		case <-free:
			n = 1
		}
	more:
		for n < slots {
			select {
			case <-free:
				n++
			default:
				break more
			}
		}
		got, err := w.fetch(ctx, n, func(msg *delivery) {
			running.Add(1)
			go func() {
				defer running.Done()
				defer func() { free <- struct{}{} }()
				w.handle(ctx, msg)
			}()
		})
		for range n - got {
			free <- struct{}{}
		}
		if err != nil && ctx.Err() == nil {
			w.log("pulling tasks: %v", err)
			select { // the server is away: do not spin
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
}

// fetch pulls up to n tasks, waiting up to pullWait for them, and gives
// each to run as it arrives; it returns how many it gave. The pull ends
// early when a task is left for another worker and when ctx ends (a task
// that arrives then is given back at once). An early end loses nothing: the
// pull's inbox is drained, so a task the server sent before it heard of
// the end still arrives.
func (w *Worker) fetch(ctx context.Context, n int, run func(*delivery)) (int, error) {
	msgs := make(chan *nats.Msg, n+16) // the tasks, and a few status messages
	inbox := w.nc.NewInbox()
	sub, err := w.nc.ChanSubscribe(inbox, msgs)
	if err != nil {
		return 0, fmt.Errorf("subscribing to %s: %w", inbox, err)
	}
	closed := sub.StatusChanged(nats.SubscriptionClosed)
	req, _ := json.Marshal(struct {
		Batch   int           `json:"batch"`
		Expires time.Duration `json:"expires"`
	}{n, pullWait})
	if err := w.nc.PublishRequest(nextSubject, inbox, req); err != nil {
		_ = sub.Unsubscribe()
		return 0, fmt.Errorf("asking for tasks: %w", err)
	}
	got := 0
	take := func(m *nats.Msg) (done bool, err error) {
		if len(m.Data) == 0 && m.Header.Get("Status") != "" {
			switch code := m.Header.Get("Status"); code {
			case "100": // a heartbeat
				return false, nil
			case "404", "408": // no task, or the pull expired
				return true, nil
			default:
				return true, fmt.Errorf("%s %s", code, m.Header.Get("Description"))
			}
		}
		if ctx.Err() != nil {
			_ = m.Nak()
		} else {
			got++
			run(&delivery{m})
		}
		return got == n, nil
	}
	// rest takes what is already here once no more can come.
	rest := func(err error) (int, error) {
		for {
			select {
			case m := <-msgs:
				if _, e := take(m); err == nil {
					err = e
				}
			default:
				return got, err
			}
		}
	}
	var ended <-chan struct{} = ctx.Done()
	left := w.left
	// The server ends the pull after pullWait; when its word does not
	// come (it is away, or slow), the pull is ended here.
	safety := time.NewTimer(pullWait + time.Second)
	defer safety.Stop()
	draining := false
	for {
		select {
		case m := <-msgs:
			done, err := take(m)
			if done || err != nil {
				_ = sub.Unsubscribe()
				return rest(err)
			}
			continue
		case <-ended:
		case <-left:
		case <-closed: // drained: what the server sent before it heard is in msgs
			return rest(nil)
		case <-safety.C:
			if draining { // no word on the drain either
				_ = sub.Unsubscribe()
				return rest(nil)
			}
		}
		// End once: stop listening, keep what is on the way.
		draining, ended, left = true, nil, nil
		safety.Reset(time.Second)
		if err := sub.Drain(); err != nil {
			_ = sub.Unsubscribe()
			return rest(err)
		}
	}
}

// leave makes the worker step out of line after it gave a task back for
// another worker, with delay before it is offered again: the pull under
// way ends, and none is made for twice delay, so the task goes to a
// worker whose pull waits when it comes back.
func (w *Worker) leave(delay time.Duration) {
	until := time.Now().Add(2 * delay)
	w.pauseMu.Lock()
	if until.After(w.pause) {
		w.pause = until
	}
	w.pauseMu.Unlock()
	select {
	case w.left <- struct{}{}:
	default:
	}
}

func (w *Worker) pausedUntil() time.Time {
	w.pauseMu.Lock()
	defer w.pauseMu.Unlock()
	return w.pause
}

// delivery is one delivery of a task.
type delivery struct{ m *nats.Msg }

func (d *delivery) Data() []byte                         { return d.m.Data }
func (d *delivery) Metadata() (*nats.MsgMetadata, error) { return d.m.Metadata() }
func (d *delivery) Ack() error                           { return d.m.Ack() }
func (d *delivery) Nak() error                           { return d.m.Nak() }
func (d *delivery) NakWithDelay(t time.Duration) error   { return d.m.NakWithDelay(t) }
func (d *delivery) Term() error                          { return d.m.Term() }
func (d *delivery) InProgress() error                    { return d.m.InProgress() }
