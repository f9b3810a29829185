package runtime

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/tools"
)

// WorkerConfig builds a Worker.
type WorkerConfig struct {
	// Remote is the worker's side of the NATS wire; its Run is the
	// Worker's own.
	Remote remote.WorkerConfig
	// Provider and Model are this machine's: a task's agent calls them.
	Provider provider.Provider
	Model    string
	// Workspace is the worker's clone; each task's tools are rooted in a
	// checkout of its own.
	Workspace tools.Workspace
	Gate      *permission.Gate
	MaxTurns  int
	// Context sizes each task agent's window and when it compacts.
	Context backend.ContextPolicy
	// Effort is the thinking level of tasks whose lead sent none.
	Effort provider.Effort
	// Memory ends each task's system prompt (memory.Memory.Prompt).
	Memory string
	Now    func() time.Time
}

// Worker is a run without a lead: the tasks an atomic worker takes from
// the queue, each an agent of the worker's one bus (its lifecycle
// reducer) and owner registry, opened through spawn as a local sub-agent
// is. remote.Serve is only its wire. StartWorker serves it; Stop ends it
// the way a lead's Run ends (stopWithin).
type Worker struct {
	cfg    WorkerConfig
	bus    *bus.Bus
	owners *bus.Owners
	cancel context.CancelFunc // ends Serve
	served chan struct{}
	err    error // Serve's, once served is closed

	mu       sync.Mutex
	stopping bool

	stopOnce sync.Once
	stopErr  error
}

// StartWorker serves the worker (remote.Serve) on a goroutine of its own
// until Stop, or until it cannot serve (Done, Err). ctx ending ends it at
// once, without Stop's grace: pass one a signal does not end.
func StartWorker(ctx context.Context, cfg WorkerConfig) *Worker {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	sctx, cancel := context.WithCancel(ctx)
	w := &Worker{cfg: cfg, bus: bus.New(), owners: bus.NewOwners(), cancel: cancel, served: make(chan struct{})}
	rc := cfg.Remote
	rc.Run = w.run
	go func() {
		defer close(w.served)
		w.err = remote.Serve(sctx, rc)
	}()
	return w
}

// Bus is the worker's bus: each task is an agent of its reducer, under its
// key (remote.Task.Key: tasks of two leads may share an id).
func (w *Worker) Bus() *bus.Bus { return w.bus }

// Owners records each task, by key, and how to cancel it.
func (w *Worker) Owners() *bus.Owners { return w.owners }

// Done is closed once the worker stopped serving: after Stop, or when it
// could not serve (Err).
func (w *Worker) Done() <-chan struct{} { return w.served }

// Err is why the worker stopped serving on its own, once Done is closed;
// nil before, and after Stop.
func (w *Worker) Err() error {
	select {
	case <-w.served:
	default:
		return nil
	}
	if errors.Is(w.err, context.Canceled) {
		return nil
	}
	return w.err
}

// Stop ends the worker: it takes no more tasks, cancels every running one
// through its owner, and waits up to grace for each to end and for its
// end to be told to its lead (remote gives a task the worker stops back
// to the queue, and says so to the lead, before Serve returns). Its error
// is ErrAgentsDidNotStop when tasks outlived the grace: their leads then
// learn it from the worker's silence. Later calls return the first one's
// error.
func (w *Worker) Stop(grace time.Duration) error {
	w.stopOnce.Do(func() {
		w.mu.Lock()
		w.stopping = true
		w.mu.Unlock()
		w.stopErr = stopWithin(grace, w.served, w.cancel, w.cancelTasks)
	})
	return w.stopErr
}

// cancelTasks cancels every task the reducer has not seen end.
func (w *Worker) cancelTasks() error {
	var errs []error
	for _, key := range w.owners.Select(func(key string, _ bus.Owner) bool { return !w.bus.Ended(key) }) {
		errs = append(errs, w.owners.Cancel(key))
	}
	return errors.Join(errs...)
}

// Running lists the keys of the tasks under way, as the reducer has them.
func (w *Worker) Running() []string {
	return w.owners.Select(func(key string, _ bus.Owner) bool { return !w.bus.Ended(key) })
}

// run is the worker's remote.Runner: it runs task t as an agent of the
// worker's bus, registered before its subagent.start, ended by its
// subagent.complete. Only the agent's own events go to the lead (sink):
// the lead's sub-agent manager announces and ends the task itself.
func (w *Worker) run(ctx context.Context, t remote.Task, dir string, prepare func() error, sink event.Sink) (*backend.Result, error) {
	key := t.Key()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	w.mu.Lock()
	if w.stopping {
		w.mu.Unlock()
		return nil, remote.ErrStopping
	}
	w.owners.Register(key, bus.Owner{Kind: bus.OwnerWorker, Done: done,
		Cancel: func() error { cancel(remote.ErrStopping); return nil }})
	w.mu.Unlock()
	defer close(done)
	w.emit(t, event.SubagentStart, event.SubagentStartData{AgentType: t.AgentType, Description: t.Description,
		Prompt: t.Prompt, Model: w.cfg.Model, Backend: backend.Native, Worker: w.cfg.Remote.Name})
	res, err := w.open(ctx, t, dir, prepare, sink)
	var out event.SubagentCompleteData
	switch {
	case err != nil && ctx.Err() != nil:
		w.mu.Lock()
		stopping := w.stopping
		w.mu.Unlock()
		if stopping {
			err = remote.ErrStopping
		}
		out.Cancelled, out.Error = true, context.Cause(ctx).Error()
	case err != nil:
		out.Error = err.Error()
	default:
		out.Success, out.Result = true, res.Text
	}
	w.emit(t, event.SubagentComplete, out)
	return res, err
}

// emit sends an event of task t's record into the worker's bus.
func (w *Worker) emit(t remote.Task, typ event.Type, data any) {
	w.bus.Emit(event.Event{Type: typ, Time: w.cfg.Now(), SessionID: t.SessionID, AgentID: t.Key(), Data: data})
}

// open runs t's agent, a native one with this machine's provider,
// permission flags and tools rooted in dir, made before its first tool
// runs (prepare).
func (w *Worker) open(ctx context.Context, t remote.Task, dir string, prepare func() error, sink event.Sink) (*backend.Result, error) {
	ws := w.cfg.Workspace
	ws.Root = dir
	opener := spawn.New(spawn.Config{Provider: w.cfg.Provider, Model: w.cfg.Model, Tools: CoreTools(ws),
		Gate: w.cfg.Gate, MaxTurns: w.cfg.MaxTurns, Context: w.cfg.Context, Now: w.cfg.Now, Effort: w.cfg.Effort})
	// A level the lead sent was checked there; one that does not parse
	// here (a newer lead's) leaves the worker's own.
	effort, _ := provider.ParseEffort(t.Effort)
	plan, err := opener.Resolve(spawn.Type{Name: t.AgentType, Tools: t.Tools, Prompt: t.System, Source: "sent by the lead", Effort: effort})
	if err != nil {
		return nil, err
	}
	system := SubagentSystemPrompt(ws, w.cfg.Memory)
	if p := strings.TrimSpace(t.System); p != "" {
		system += "\n\n" + p
	}
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	// The lead's wire as before: each event as a reducer of the task's own
	// resolves it (its counts), then the worker's bus under the task's key.
	out := &taskSink{lead: bus.For(sink), bus: w.bus, id: t.ID, key: t.Key(), prepare: prepare, fail: fail}
	sess, err := opener.Open(plan, spawn.Spec{SessionID: t.SessionID, AgentID: t.ID, ParentID: t.ParentID,
		Name: t.AgentType, Sink: out, System: system})
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	res, err := sess.Run(ctx, t.Prompt)
	var pe prepareError
	if err != nil && errors.As(context.Cause(ctx), &pe) {
		return nil, pe.err
	}
	return res, err
}

// taskSink takes a task's agent's events: it makes the agent's worktree
// when its first tool starts (the tool runs once its tool.start is out;
// a worktree that cannot be made ends the agent with the reason), sends
// each to the lead, and records it in the worker's bus under the task's
// key.
type taskSink struct {
	lead    event.Sink
	bus     *bus.Bus
	id, key string
	prepare func() error
	fail    context.CancelCauseFunc
}

type prepareError struct{ err error }

func (e prepareError) Error() string { return e.err.Error() }

func (s *taskSink) Emit(e event.Event) {
	if e.Type == event.ToolStart && e.AgentID == s.id {
		if err := s.prepare(); err != nil {
			s.fail(prepareError{err})
		}
	}
	s.lead.Emit(e)
	if e.AgentID == s.id {
		e.AgentID, e.ParentAgentID = s.key, ""
	}
	s.bus.Emit(e)
}
