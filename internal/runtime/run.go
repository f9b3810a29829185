package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// Run is a started runtime: the one lifecycle every front end (the chat
// UI, atomic run, each ACP session) drives. Start serves it; Submit gives
// the lead a prompt and tells when its turn ends; Stop interrupts what is
// under way, delivers every cancel and waits, bounded, for the agents to
// end.
type Run struct {
	rt     *Runtime
	cancel context.CancelFunc
	served chan struct{} // closed when Serve has returned

	mu       sync.Mutex
	stopping bool
	turns    map[*Turn]struct{} // submitted and not yet ended
	stopped  chan struct{}      // closed once Stop begins

	stopOnce sync.Once
	stopErr  error
}

// StopReason is the reason of the interrupt Stop sends.
const StopReason = "stopped"

// ErrAgentsDidNotStop is Stop's error when agents outlive its grace.
var ErrAgentsDidNotStop = errors.New("agents did not stop in time")

// Start serves the run (its driver loop, Serve) on a goroutine of its own
// until Stop. ctx ending ends the loop at once, as Serve does, without
// Stop's interrupt and grace: a front end that interrupts on a signal
// passes a context the signal does not end.
func (r *Runtime) Start(ctx context.Context) *Run {
	sctx, cancel := context.WithCancel(ctx)
	run := &Run{rt: r, cancel: cancel, served: make(chan struct{}), turns: map[*Turn]struct{}{},
		stopped: make(chan struct{})}
	go func() {
		defer close(run.served)
		_ = r.Serve(sctx)
	}()
	return run
}

// Runtime is the run's runtime.
func (run *Run) Runtime() *Runtime { return run.rt }

// Completed delivers an Outcome each time the run settles.
func (run *Run) Completed() <-chan Outcome { return run.rt.Completed() }

// Turn is the lead's turn for one submitted prompt.
type Turn struct {
	once sync.Once
	done chan struct{}
	end  event.TurnEndData
	ran  bool
	run  *Run // nil: not tracked
	// start runs as the turn starts (nil: nothing): a skill's grant is
	// for its own turn, not one running or queued before it.
	start func()
}

// droppedTurn is the end of a prompt whose turn never ran.
var droppedTurn = event.TurnEndData{StopReason: event.StopInterrupted}

// Done is closed once, when the turn has ended: after its turn.end was
// emitted, or when the prompt will never start one (an interrupt or Stop
// came first).
func (t *Turn) Done() <-chan struct{} { return t.done }

// End is how the turn ended, once Done is closed: its turn.end's data, and
// whether it ran at all (false: the prompt was dropped, StopReason
// event.StopInterrupted).
func (t *Turn) End() (end event.TurnEndData, ran bool) {
	<-t.done
	return t.end, t.ran
}

// finish ends t the first time it is called; a nil t is nobody's.
func (t *Turn) finish(end event.TurnEndData, ran bool) {
	if t == nil {
		return
	}
	t.once.Do(func() {
		t.end, t.ran = end, ran
		if t.run != nil {
			t.run.mu.Lock()
			delete(t.run.turns, t)
			t.run.mu.Unlock()
		}
		close(t.done)
	})
}

// Submit queues a user prompt for the lead, images (if any) after its
// text (Runtime.SubmitImages), and returns its turn. After Stop the
// prompt is dropped: its turn ends at once, not run.
func (run *Run) Submit(prompt string, images ...provider.Image) *Turn {
	return run.submit(prompt, images, nil)
}

// SubmitAtStart is Submit calling start once the prompt's turn starts
// (never when it is dropped).
func (run *Run) SubmitAtStart(prompt string, start func(), images ...provider.Image) *Turn {
	return run.submit(prompt, images, start)
}

func (run *Run) submit(prompt string, images []provider.Image, start func()) *Turn {
	t := &Turn{done: make(chan struct{}), run: run, start: start}
	run.mu.Lock()
	if run.stopping {
		run.mu.Unlock()
		t.finish(droppedTurn, false)
		return t
	}
	run.turns[t] = struct{}{}
	run.mu.Unlock()
	run.rt.submit(input{prompt: prompt, images: images, turn: t}, run.stopped)
	return t
}

// Stop ends the run. When anything is under way (a turn, a queued prompt,
// a sub-agent or teammate still active) it interrupts it (reason
// StopReason: every active agent's record ends interrupted) and cancels
// the lead's turn, every sub-agent, every teammate, the sub-agents of an
// external CLI lead and the tasks on remote workers; then it ends the
// driver loop and waits up to grace for every agent to end. Whatever
// happens within the grace, it returns only after every cancel has been
// delivered: to a local agent (its context), to an external CLI lead (its
// CancelAgent returned) and to the NATS server for the workers (flushed),
// so a process that exits right after Stop leaves no task running
// elsewhere. Its error names the cancels that could not be delivered and
// ErrAgentsDidNotStop when agents outlived the grace. Every submitted
// turn has ended by then. Later calls return the first one's error.
func (run *Run) Stop(grace time.Duration) error {
	run.stopOnce.Do(func() { run.stopErr = run.stop(grace) })
	return run.stopErr
}

func (run *Run) stop(grace time.Duration) error {
	r := run.rt
	run.mu.Lock()
	run.stopping = true
	close(run.stopped)
	run.mu.Unlock()
	var leadAgents []string
	if r.Busy() || len(r.inputs) > 0 || r.bus.Unsettled() > 0 {
		leadAgents = r.interrupt(StopReason)
	}
	err := stopWithin(grace, run.served, run.cancel, func() error { return r.deliverCancels(leadAgents) })
	run.endTurns()
	return err
}

// stopWithin is the end every run shares (a lead's Run, a Worker): it
// delivers the cancels (deliver) while the grace runs, so that one slow
// to deliver holds neither the others nor the serving loop's end; ends
// the serving loop (end) and waits up to grace for it to return
// (served). It returns only after deliver has: its error, joined with
// ErrAgentsDidNotStop when the loop outlived the grace.
func stopWithin(grace time.Duration, served <-chan struct{}, end func(), deliver func() error) error {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	delivered := make(chan error, 1)
	go func() { delivered <- deliver() }()
	end()
	var errs []error
	select {
	case <-served:
	case <-timer.C:
		errs = append(errs, fmt.Errorf("%w (waited %s)", ErrAgentsDidNotStop, grace))
	}
	if err := <-delivered; err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// deliverCancels cancels everything of the run (cancelAll) and then the
// tasks on remote workers, returning once each cancel is delivered.
func (r *Runtime) deliverCancels(leadAgents []string) error {
	err := r.cancelAll(leadAgents)
	if r.cfg.Remote != nil {
		// After the tasks' contexts: a task's Run that ends from its
		// context sends its own cancel too.
		err = errors.Join(err, r.cfg.Remote.CancelAll())
	}
	return err
}

// endTurns ends the turns of prompts the stopped loop never ran (or whose
// lead outlived the grace): dropped.
func (run *Run) endTurns() {
	run.mu.Lock()
	left := make([]*Turn, 0, len(run.turns))
	for t := range run.turns {
		left = append(left, t)
	}
	run.mu.Unlock()
	for _, t := range left {
		t.finish(droppedTurn, false)
	}
}
