package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/worktree"
)

// Runner runs one task's agent with its tools rooted in dir, its events
// going to sink. The worker's own provider, model and keys are the
// runner's: nothing of them travels. dir is made on the first call of
// prepare, which the runner makes before the agent's first tool runs: an
// agent that answers without a tool costs no checkout. A runner that
// ends a task because the worker stops (or takes none while it stops)
// returns an error that Is ErrStopping: the task is given back.
type Runner func(ctx context.Context, t Task, dir string, prepare func() error, sink event.Sink) (*backend.Result, error)

// ErrStopping is why a task ends when its worker stops before the task's
// end: the worker gives it back to the queue, for another worker, and
// tells the lead so.
var ErrStopping = errors.New("the worker is stopping")

// WorkerConfig is one worker process.
type WorkerConfig struct {
	Options
	// Name is the worker's name in the lead's events (default host-pid).
	Name string
	// Workspace is the worker's clone of the lead's repository.
	Workspace string
	// Concurrency is how many tasks it runs at once (default 1).
	Concurrency int
	Run         Runner
	// Log is told what the worker does, one line at a time.
	Log func(string)
	// Ready is called once the worker pulls tasks.
	Ready func()
}

// DefaultName is a worker's name when none is given: host and pid.
func DefaultName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

// Worker pulls tasks and runs them.
type Worker struct {
	cfg   WorkerConfig
	nc    *nats.Conn
	store jetstream.ObjectStore
	// left is told when a task is left for another worker; no pull is
	// made before pause.
	left    chan struct{}
	pauseMu sync.Mutex
	pause   time.Time
	// gitMu keeps the clone's worktree bookkeeping one at a time.
	gitMu sync.Mutex
	// top is the clone's top level; commits lists the commits found in
	// it (a commit once there stays there).
	top       string
	commitsMu sync.Mutex
	commits   map[string]bool
}

// hasCommit checks that the clone has commit, once per commit.
func (w *Worker) hasCommit(ctx context.Context, commit string) error {
	if commit == "" {
		return errors.New("the task names no commit of the lead")
	}
	w.commitsMu.Lock()
	ok := w.commits[commit]
	w.commitsMu.Unlock()
	if ok {
		return nil
	}
	if _, err := worktree.Git(ctx, w.top, nil, nil, "cat-file", "-e", commit+"^{commit}"); err != nil {
		return fmt.Errorf("commit %s is not in worker %s's repository %s: push it from the lead and fetch it here (git fetch)", commit, w.cfg.Name, w.top)
	}
	w.commitsMu.Lock()
	w.commits[commit] = true
	w.commitsMu.Unlock()
	return nil
}

// lazyCheckout is a task's worktree, made when its agent first needs it.
type lazyCheckout struct {
	w    *Worker
	t    Task
	ctx  context.Context
	path string
	once sync.Once
	co   *checkout
	err  error
	mu   sync.Mutex
}

// prepare makes the worktree (once) and says whether it could.
func (l *lazyCheckout) prepare() error {
	l.once.Do(func() {
		var patch []byte
		if l.t.Patch != "" {
			var err error
			if patch, err = l.w.store.GetBytes(l.ctx, l.t.Patch); err != nil {
				l.err = fmt.Errorf("reading the lead's changes (%s): %w", l.t.Patch, err)
				return
			}
		}
		co, err := newCheckout(l.ctx, &l.w.gitMu, l.w.top, l.path, l.t.Commit, patch)
		l.mu.Lock()
		l.co, l.err = co, err
		l.mu.Unlock()
	})
	return l.err
}

func (l *lazyCheckout) made() *checkout {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.co
}

func (l *lazyCheckout) remove() {
	l.prepareDone()
	if co := l.made(); co != nil {
		co.remove()
	}
}

// prepareDone waits for a prepare under way (a tool of a cancelled agent).
func (l *lazyCheckout) prepareDone() {
	l.once.Do(func() { l.err = errors.New("the task ended") })
}

// Serve runs the worker until ctx ends: it then takes no more tasks and
// returns once the running ones have ended and their leads have been
// told. Ending them is the runner's owner's (runtime.Worker.Stop), not
// ctx's: a task that ends with ErrStopping is given back (not acked), its
// lead told first, so another worker takes it.
func Serve(ctx context.Context, cfg WorkerConfig) error {
	if cfg.Name == "" {
		cfg.Name = DefaultName()
	}
	if strings.ContainsAny(cfg.Name, " .*>") {
		return fmt.Errorf("worker name %q: must not contain spaces, dots, * or >", cfg.Name)
	}
	cfg.Concurrency = max(cfg.Concurrency, 1)
	if cfg.Log == nil {
		cfg.Log = func(string) {}
	}
	if cfg.Run == nil {
		return errors.New("worker: no runner")
	}
	top, err := worktree.TopLevel(ctx, cfg.Workspace)
	if err != nil {
		return fmt.Errorf("--workspace %s: %w", cfg.Workspace, err)
	}
	nc, js, store, err := connect(ctx, cfg.Options, "atomic worker "+cfg.Name)
	if err != nil {
		return err
	}
	defer nc.Close()
	hb := cfg.heartbeat()
	_, err = js.CreateOrUpdateConsumer(ctx, Stream, jetstream.ConsumerConfig{Durable: Consumer,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: 3 * hb, MaxDeliver: -1, MaxAckPending: -1})
	if err != nil {
		return fmt.Errorf("creating the workers' consumer on %s: %w", Stream, err)
	}
	w := &Worker{cfg: cfg, nc: nc, store: store, left: make(chan struct{}, 1), top: top, commits: map[string]bool{}}
	if cfg.Ready != nil {
		cfg.Ready()
	}
	w.pull(ctx, cfg.Concurrency)
	return nil
}

func (w *Worker) log(format string, args ...any) {
	w.cfg.Log(fmt.Sprintf("worker %s: ", w.cfg.Name) + fmt.Sprintf(format, args...))
}

// handle runs one delivery of a task, start to end.
func (w *Worker) handle(ctx context.Context, msg *delivery) {
	var t Task
	if err := json.Unmarshal(msg.Data(), &t); err != nil || t.Lead == "" || t.ID == "" {
		w.log("dropped a malformed task: %v", err)
		_ = msg.Term()
		return
	}
	attempt := 1
	if md, err := msg.Metadata(); err == nil {
		attempt = int(md.NumDelivered)
	}
	leadHB := time.Duration(t.HeartbeatMS) * time.Millisecond
	if leadHB <= 0 {
		leadHB = DefaultHeartbeat
	}
	if t.MaxAttempts > 0 && attempt > t.MaxAttempts {
		w.log("task %s: gave up after %d attempts", t.ID, t.MaxAttempts)
		_ = w.send(t, Result{Task: t.ID, Attempt: attempt, Worker: w.cfg.Name, GaveUp: true,
			Error: fmt.Sprintf("gave up after %d attempts: every worker that took the task stopped before finishing it", t.MaxAttempts)}, leadHB)
		_ = msg.Term()
		return
	}
	if err := w.hasCommit(ctx, t.Commit); err != nil && attempt < t.MaxAttempts {
		// Another worker may have it: only the last attempt reports it.
		w.log("task %s: left for another worker: %v", t.ID, err)
		_ = msg.NakWithDelay(leadHB / 4)
		w.leave(leadHB / 4)
		return
	}
	// The lead may cancel the moment it grants the claim: the worker
	// listens for that before it asks, and the server has the interest
	// (Flush) before the claim leaves, so no cancel falls in between.
	// The lead ends the task, or its owner (ErrStopping); ctx only ends
	// the pulls.
	tctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	cSub, err := w.nc.Subscribe(cancelSubject(t.Lead, t.ID), func(*nats.Msg) { cancel(errCancelledByLead) })
	if err == nil {
		defer cSub.Unsubscribe()
		err = w.nc.Flush()
	}
	if err != nil {
		w.log("task %s: not run: listening for the lead's cancel: %v", t.ID, err)
		_ = msg.NakWithDelay(leadHB / 4)
		return
	}
	claim, _ := json.Marshal(Claim{Task: t.ID, Attempt: attempt, Worker: w.cfg.Name})
	rep, err := w.nc.Request(leadSubject(t.Lead, "claim"), claim, 3*leadHB)
	var cr ClaimReply
	if err != nil || json.Unmarshal(rep.Data, &cr) != nil || !cr.Go {
		reason := cr.Reason
		if err != nil {
			reason = "the lead does not answer: " + err.Error()
		}
		w.log("task %s: not run: %s", t.ID, reason)
		_ = msg.Term()
		return
	}
	w.log("task %s: started (attempt %d)", t.ID, attempt)
	res, why, stopped := w.run(tctx, cancel, msg, t, attempt, leadHB)
	switch {
	case stopped:
		w.giveBack(msg, t, attempt, leadHB)
	case why != "":
		w.log("task %s: cancelled: %s", t.ID, why)
		_ = msg.Term()
	default:
		_ = w.send(t, res, leadHB)
		_ = msg.Ack()
		w.log("task %s: finished (success %v)", t.ID, res.Success)
	}
}

// run runs the attempt; why is set when it was cancelled (by the lead, or
// because the lead went silent), stopped when the worker stopped first.
// tctx is the task's context, which the lead's cancel ends; cancel ends it
// when the lead goes silent.
func (w *Worker) run(tctx context.Context, cancel context.CancelCauseFunc, msg *delivery, t Task, attempt int, leadHB time.Duration) (res Result, why string, stopped bool) {
	res, err := w.attempt(tctx, cancel, msg, t, attempt, leadHB)
	if why := leadEnded(tctx); why != "" {
		return res, why, false
	}
	return res, "", errors.Is(err, ErrStopping)
}

// attempt runs one attempt of t and returns its Result; the error is the
// runner's, when it failed or was stopped.
func (w *Worker) attempt(tctx context.Context, cancel context.CancelCauseFunc, msg *delivery, t Task, attempt int, leadHB time.Duration) (Result, error) {
	res := Result{Task: t.ID, Attempt: attempt, Worker: w.cfg.Name}
	heard := atomic.Int64{}
	heard.Store(time.Now().UnixNano())
	hbSub, err := w.nc.Subscribe(leadSubject(t.Lead, "hb"), func(*nats.Msg) { heard.Store(time.Now().UnixNano()) })
	if err == nil {
		defer hbSub.Unsubscribe()
	}
	beatDone := make(chan struct{})
	var beats sync.WaitGroup
	beats.Add(1)
	go func() {
		defer beats.Done()
		tick := time.NewTicker(min(w.cfg.heartbeat(), leadHB))
		defer tick.Stop()
		beat, _ := json.Marshal(Beat{Task: t.ID, Attempt: attempt, Worker: w.cfg.Name})
		for {
			select {
			case <-beatDone:
				return
			case <-tick.C:
			}
			_ = msg.InProgress()
			_ = w.nc.Publish(leadSubject(t.Lead, "beat"), beat)
			if time.Since(time.Unix(0, heard.Load())) > 3*leadHB {
				cancel(errLeadSilent)
			}
		}
	}()
	defer func() {
		close(beatDone)
		beats.Wait()
	}()

	if err := w.hasCommit(tctx, t.Commit); err != nil {
		res.Error = err.Error()
		return res, err
	}
	co := &lazyCheckout{w: w, t: t, ctx: tctx, path: checkoutPath(w.top, fmt.Sprintf("%s-%s-%d", t.Lead, t.ID, attempt))}
	defer co.remove()
	sink := &publisher{nc: w.nc, subj: leadSubject(t.Lead, "ev"), task: t.ID, attempt: attempt}
	out, err := w.cfg.Run(tctx, t, co.path, co.prepare, sink)
	if err != nil {
		res.Error = err.Error()
		return res, err
	}
	res.Success, res.Text, res.Usage, res.Turns = true, out.Text, out.Usage, out.Turns
	if co.made() == nil {
		return res, nil // no tool ran: nothing changed
	}
	diff, err := co.made().diff(tctx)
	if err != nil {
		res.Success, res.Error = false, fmt.Sprintf("reading the agent's changes: %v", err)
		return res, nil
	}
	if len(diff) > 0 {
		name := fmt.Sprintf("result-%s-%s-%d", t.Lead, t.ID, attempt)
		if _, err := w.store.PutBytes(tctx, name, diff); err != nil {
			res.Success, res.Error = false, fmt.Sprintf("storing the agent's changes: %v", err)
			return res, nil
		}
		res.Patch = name
	}
	return res, nil
}

// Why a task the lead ended ended: it cancelled the task, or went silent.
var (
	errCancelledByLead = errors.New("cancelled by the lead")
	errLeadSilent      = errors.New("the lead stopped its heartbeat")
)

// leadEnded says why the lead ended ctx's task ("" when it did not).
func leadEnded(ctx context.Context) string {
	if c := context.Cause(ctx); errors.Is(c, errCancelledByLead) || errors.Is(c, errLeadSilent) {
		return c.Error()
	}
	return ""
}

// giveBack hands back a task the worker stops before its end, for another
// worker, and first tells the lead, whose row then waits for that worker
// rather than for this one's heartbeat. On the task's last attempt it
// ends the task instead, as the next worker would.
func (w *Worker) giveBack(msg *delivery, t Task, attempt int, leadHB time.Duration) {
	res := Result{Task: t.ID, Attempt: attempt, Worker: w.cfg.Name}
	if t.MaxAttempts > 0 && attempt >= t.MaxAttempts {
		res.GaveUp, res.Error = true, fmt.Sprintf("gave up after %d attempts: worker %s stopped before finishing it", t.MaxAttempts, w.cfg.Name)
		err := w.send(t, res, leadHB)
		_ = msg.Term()
		w.log("task %s: given back (worker stopping) on its last attempt: ended%s", t.ID, told(err))
		return
	}
	res.Stopped, res.Error = true, fmt.Sprintf("worker %s stopped", w.cfg.Name)
	err := w.send(t, res, leadHB)
	_ = msg.Nak()
	w.log("task %s: given back (worker stopping)%s", t.ID, told(err))
}

// told words whether the lead has the worker's word.
func told(err error) string {
	if err != nil {
		return "; the lead was not told: " + err.Error()
	}
	return "; the lead was told"
}

// send gives the lead the attempt's result and waits for its word (a lead
// that is gone or has another attempt's result just does not take it);
// the error says when the lead did not answer.
func (w *Worker) send(t Task, r Result, leadHB time.Duration) error {
	b, _ := json.Marshal(r)
	if _, err := w.nc.Request(leadSubject(t.Lead, "result"), b, 3*leadHB); err != nil {
		w.log("task %s: the lead did not take the result: %v", t.ID, err)
		return err
	}
	return nil
}

// publisher sends one attempt's events to its lead.
type publisher struct {
	nc      *nats.Conn
	subj    string
	task    string
	attempt int
}

func (p *publisher) Emit(e event.Event) {
	raw, err := json.Marshal(e)
	if err != nil {
		return
	}
	b, _ := json.Marshal(Envelope{Task: p.task, Attempt: p.attempt, Event: raw})
	_ = p.nc.Publish(p.subj, b)
}
