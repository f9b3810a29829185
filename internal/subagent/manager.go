// Package subagent schedules sub-agents: each is a fresh session, opened by
// spawn (on the native loop, an external CLI or the NATS workers) with its
// own history, system prompt and tool set, given only the task prompt. The
// Manager caps how many run at once (the rest wait FIFO as pending), keeps
// every result independent (one failure or panic never touches a sibling),
// and closes every session on every path. The task tool and its background
// companions (check_task, wait_for_task, list_background_tasks,
// cancel_task) live here too.
package subagent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/tools"
)

// DefaultMaxConcurrent is how many sub-agents run at once by default.
const DefaultMaxConcurrent = 5

// DefaultMaxResult is how many characters of a sync result go back to the
// caller; the rest is cut with a note.
const DefaultMaxResult = 20000

// Config builds a Manager.
type Config struct {
	SessionID string
	Provider  provider.Provider
	// Model is the caller's model, inherited by types that name none.
	Model string
	Types *spawn.Registry
	// Tools is every tool a sub-agent may get (no orchestration tools):
	// general-purpose gets all of it, other types a subset by name.
	Tools *tools.Set
	Gate  *permission.Gate
	Sink  event.Sink
	// Agents is the one state of every agent: the lifecycle reducer fed by
	// Sink. Nil: Sink itself when it is a *bus.Bus, else a private bus
	// that forwards every event to Sink.
	Agents Agents
	// MaxConcurrent caps running local sub-agents (0:
	// DefaultMaxConcurrent). Remote ones take none of these slots.
	MaxConcurrent int
	// MaxRemote caps the tasks sent to Remote's workers at once (0:
	// unbounded: the workers' own concurrency bounds them, each claiming
	// only as many as it runs).
	MaxRemote int
	// MaxTurns bounds each sub-agent's model requests (0: agent default).
	MaxTurns int
	// MaxDepth is how many levels of sub-agents may be below the lead (0:
	// DefaultMaxDepth): an agent at that depth gets no task tool.
	MaxDepth int
	// Context sizes each native sub-agent's window and when it compacts.
	Context backend.ContextPolicy
	// Effort is the lead's thinking level, which sub-agents inherit.
	Effort    provider.Effort
	MaxResult int
	// System is the base system prompt; the type's prompt is appended.
	System string
	// Workspace is the working directory of sub-agents run by an external
	// CLI (native ones get theirs through their tools), and the repository
	// isolated agents get a worktree of.
	Workspace string
	// FileTools builds the file tools and bash working in root, for an
	// isolated agent's worktree; they replace the same-named tools of
	// Tools. Nil: tools.Core of a workspace rooted there.
	FileTools func(root string) *tools.Set
	// BeforeMerge, when set, is given the absolute paths a worktree merge
	// is about to change in the lead's tree (a /rewind snapshot).
	BeforeMerge func(paths []string)
	// Sandbox is the mode of the sandbox confining native sub-agents'
	// commands ("" when off); external CLIs keep their own.
	Sandbox string
	// Backends builds the session of an agent type whose file names
	// another backend (backend: claude-code, …); nil: such types fail to
	// start with an error that says so.
	Backends backend.Factory
	Now      func() time.Time
	// OnFinish is called when a task ends, with how it ended, before its
	// subagent.complete is emitted (so a woken lead already has the
	// result queued).
	OnFinish func(*Task, Outcome)
	// History, when set, is given each native sub-agent's whole history
	// after each change (the session store); it must only queue.
	History func(agentID string, msgs []provider.Message)
	// Warn is told what a sub-agent starts without (MCP tools of a server
	// not up); it must not block.
	Warn func(string)
	// Remote, when set, sends the agent types it takes to workers on
	// other machines (NATS).
	Remote *remote.Dispatcher
	// Owners is the run's owner registry: the manager registers each task
	// it spawns, and the sink of a CLI session it opens each sub-agent
	// that CLI starts. cancel_task reads it. Nil: a registry of its own.
	Owners *bus.Owners
	// Hooks are the user's hooks each native sub-agent runs (nil: none).
	Hooks *hooks.Runner
	// Shells runs the background shells of native sub-agents' bash: an
	// agent whose turn ends while its shells run waits for them (each
	// exit wakes it with the shell's status and output), and its shells
	// still running when it ends are stopped. Nil: none.
	Shells *tools.Shells
}

// Agents reads the lifecycle reducer's records.
type Agents interface {
	Agent(id string) (lifecycle.Record, bool)
	Agents() []lifecycle.Record
	// OpenChild reports whether an agent parent started has not yet
	// reported its end.
	OpenChild(parent string) bool
	// Ended reports whether an agent (a sub-agent or a teammate) has a
	// final status.
	Ended(id string) bool
}

// Manager starts and tracks sub-agents. Safe for concurrent use.
type Manager struct {
	cfg Config
	// open resolves each task's type and opens its session.
	open  *spawn.Opener
	slots *slots // local agents'
	// remoteSlots bound the tasks sent to workers (MaxRemote; unbounded
	// when 0).
	remoteSlots *slots
	base        context.Context
	stop        context.CancelFunc
	wg          sync.WaitGroup

	// wtMu keeps merges and discards of worktrees one at a time.
	wtMu sync.Mutex

	mu     sync.Mutex
	closed bool
	tasks  map[string]*Task
	// adopted are agents this manager did not start that may start
	// sub-agents through it (teammates; adopt.go).
	adopted  map[string]*nesting
	order    []*Task
	counts   map[string]int
	taken    map[string]bool         // ids of a resumed session's agents
	reserved map[string]*reservation // by task tool call id
	// resumable are the interrupted tasks of a resumed session that
	// ResumeTask can continue.
	resumable map[string]Resumable
	// offer is the lead's tool set, whose held tools are offered as they
	// become useful (Offer); nil: this manager offers nothing.
	offer *tools.Set
}

// reservation is a task named and queued but not yet started.
type reservation struct {
	task   *Task
	plan   spawn.Plan
	ticket *ticket
}

// New returns a Manager. Close it to cancel and wait for all tasks.
func New(cfg Config) *Manager {
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.MaxResult <= 0 {
		cfg.MaxResult = DefaultMaxResult
	}
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = DefaultMaxDepth
	}
	if cfg.Types == nil {
		cfg.Types = spawn.NewRegistry()
	}
	if cfg.Tools == nil {
		cfg.Tools = tools.NewSet()
	}
	if cfg.Sink == nil {
		cfg.Sink = event.Discard
	}
	if cfg.Agents == nil {
		b := bus.For(cfg.Sink)
		cfg.Sink, cfg.Agents = b, b
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Owners == nil {
		cfg.Owners = bus.NewOwners()
	}
	base, stop := context.WithCancel(context.Background())
	m := &Manager{cfg: cfg, slots: newSlots(cfg.MaxConcurrent), remoteSlots: newSlots(cmp.Or(max(cfg.MaxRemote, 0), math.MaxInt)),
		base: base, stop: stop,
		tasks: map[string]*Task{}, counts: map[string]int{}, taken: map[string]bool{}, reserved: map[string]*reservation{}}
	m.open = spawn.New(spawn.Config{Provider: cfg.Provider, Model: cfg.Model, Types: cfg.Types, Tools: cfg.Tools,
		Gate: cfg.Gate, MaxTurns: cfg.MaxTurns, Context: cfg.Context, Effort: cfg.Effort, Workspace: cfg.Workspace, Now: cfg.Now, CLIs: cfg.Backends,
		NameAgent: m.Name, Remote: cfg.Remote, History: cfg.History, Warn: cfg.Warn, Hooks: cfg.Hooks})
	return m
}

// SetModel changes the model inherited by sub-agents spawned from now on.
func (m *Manager) SetModel(model string) { m.open.SetModel(model) }

// MaxConcurrent is the cap on running local sub-agents.
func (m *Manager) MaxConcurrent() int { return m.cfg.MaxConcurrent }

// Types is the agent type registry.
func (m *Manager) Types() *spawn.Registry { return m.cfg.Types }

// ErrClosed is returned by Spawn after Close.
var ErrClosed = errors.New("sub-agent manager is closed")

// Reserve names the agent a task call will start and takes its place in
// the slot queue, before the call is announced: the call's tool.start then
// carries the agent's id and session, and says whether it waits for a
// slot. A remote agent always waits, for a worker to claim it (pending
// until then). Spawn with the same ToolCallID starts it; Release gives the
// reservation up.
func (m *Manager) Reserve(spec Spec) (t *Task, queued bool, err error) {
	if spec.ToolCallID == "" {
		return nil, false, errors.New("a reservation needs the task call id")
	}
	r, err := m.reserve(spec)
	if err != nil {
		return nil, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		r.ticket.abandon()
		return nil, false, ErrClosed
	}
	if old, dup := m.reserved[spec.ToolCallID]; dup {
		old.ticket.abandon()
	}
	m.reserved[spec.ToolCallID] = r
	return r.task, m.remote(r.task) || r.ticket.queued(), nil
}

// Reserved is the spec reserved for task call callID, if any: Start takes
// it as Reserve read it, so a call's input is parsed once.
func (m *Manager) Reserved(callID string) (Spec, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.reserved[callID]; r != nil {
		return r.task.Spec, true
	}
	return Spec{}, false
}

// Release gives up the reservation of task call callID, if any (the call
// was denied or failed before it started).
func (m *Manager) Release(callID string) {
	m.mu.Lock()
	r := m.reserved[callID]
	delete(m.reserved, callID)
	m.mu.Unlock()
	if r != nil {
		r.ticket.abandon()
	}
}

// reserve resolves spec's type (spawn: its tools, model and backend),
// names the agent and joins the slot queue: the local one, or for a task
// sent to the workers the remote one.
func (m *Manager) reserve(spec Spec) (*reservation, error) {
	plan, err := m.open.Lookup(spec.Type)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	depth, err := m.depthLocked(spec.ParentID)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	id := m.nameLocked(plan.Type.Name)
	t := &Task{ID: id, Spec: spec, Type: plan.Type, Model: plan.Model, SessionID: m.cfg.SessionID + "/" + id,
		backend: plan.Backend, done: make(chan struct{})}
	t.nest.depth = depth
	queue := m.slots
	if m.remote(t) {
		queue = m.remoteSlots
	}
	tk := queue.join() // queue position follows the calls, under m.mu
	m.mu.Unlock()
	return &reservation{task: t, plan: plan, ticket: tk}, nil
}

// Spawn starts a sub-agent and returns at once: the one reserved for
// spec.ToolCallID, or a new one. A sync task (not Spec.Background) is also
// cancelled when ctx ends; a background task lives until it finishes, is
// cancelled, or the manager closes.
func (m *Manager) Spawn(ctx context.Context, spec Spec) (*Task, error) {
	m.mu.Lock()
	r := m.reserved[spec.ToolCallID]
	delete(m.reserved, spec.ToolCallID)
	m.mu.Unlock()
	if r == nil {
		var err error
		if r, err = m.reserve(spec); err != nil {
			return nil, err
		}
	}
	if spec.Isolation != "" && spec.Isolation != spawn.Worktree {
		r.ticket.abandon()
		return nil, fmt.Errorf("isolation %q is not supported; use %q", spec.Isolation, spawn.Worktree)
	}
	t := r.task
	t.Spec = spec
	plan, err := r.plan, error(nil)
	if !m.remote(t) { // a worker isolates its tasks itself; changes come back as a branch
		plan.Tools, err = m.isolate(ctx, t, plan.Tools)
	}
	if err != nil {
		r.ticket.abandon()
		return nil, err
	}
	plan.Tools = m.nestTools(t, plan)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		r.ticket.abandon()
		if tree := t.tree(); tree != nil {
			_ = tree.Remove(ctx)
		}
		return nil, ErrClosed
	}
	// Under its parent's context: stopping an agent stops its subtree.
	tctx, cancel := context.WithCancel(m.baseOfLocked(spec.ParentID))
	t.cancel, t.nest.ctx = cancel, tctx
	if t.iso != nil {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			t.iso.fill(tctx, t)
		}()
	}
	if !spec.Background {
		t.stopParent = context.AfterFunc(ctx, cancel)
	}
	m.tasks[t.ID] = t
	m.order = append(m.order, t)
	m.wg.Add(1)
	m.mu.Unlock()
	m.register(t)
	m.offerFor(t)

	if !m.remote(t) {
		// A remote agent's subagent.start waits for the worker that takes
		// it, which it names (startRemote).
		m.emitStart(t)
	}
	queued := r.ticket.queued()
	if queued {
		m.update(t, lifecycle.WaitingSlot)
	} else {
		// Running at once; this also corrects a task call announced as
		// queued whose slot freed up before the spawn.
		m.update(t, "")
	}
	go m.run(tctx, t, plan, r.ticket, queued)
	return t, nil
}

// sandboxOf is the sandbox mode of t's commands: the session's for a
// native agent, none for an external CLI's (which has its own).
func (m *Manager) sandboxOf(t *Task) string {
	if t.Type.External() {
		return ""
	}
	return m.cfg.Sandbox
}

// emitStart announces t's session.
func (m *Manager) emitStart(t *Task) {
	m.emit(t, event.SubagentStart, event.SubagentStartData{
		AgentType: t.Type.Name, Description: t.Spec.Description, Prompt: t.Spec.Prompt,
		Background: t.Spec.Background, Model: t.Model, Backend: cmp.Or(t.Type.Backend, backend.Native),
		Worktree: t.worktreePath(), Worker: t.workerName(), Sandbox: m.sandboxOf(t),
	})
}

// nameLocked gives the next id of agent type typ (<type>-<n>); m.mu is
// held. Every agent of the tree is named here, those an external CLI
// starts included, so no two share an id.
func (m *Manager) nameLocked(typ string) string {
	typ = strings.ToLower(typ)
	for {
		m.counts[typ]++
		if id := fmt.Sprintf("%s-%d", typ, m.counts[typ]); !m.taken[id] {
			return id
		}
	}
}

// Taken tells the namer that id is in use (an agent of the session being
// resumed), so no new agent gets it. Ids are compared, never parsed.
func (m *Manager) Taken(id string) {
	m.mu.Lock()
	m.taken[id] = true
	m.mu.Unlock()
}

// Name gives the next id of agent type typ: the one namer of the tree,
// which sessions of external CLIs in it use for their own sub-agents.
func (m *Manager) Name(typ string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.nameLocked(typ)
}

func (m *Manager) emit(t *Task, typ event.Type, data any) {
	m.cfg.Sink.Emit(event.Event{Type: typ, Time: m.cfg.Now(), SessionID: t.SessionID,
		AgentID: t.ID, ParentAgentID: t.Spec.ParentID, ToolCallID: t.Spec.ToolCallID, Data: data})
}

// update emits the task's progress; waiting is lifecycle.WaitingSlot while
// it is queued for a slot.
func (m *Manager) update(t *Task, waiting string) {
	d := t.progress()
	d.Waiting = waiting
	if m.remote(t) && !t.started.Load() {
		return // announced once a worker takes it
	}
	m.emit(t, event.SubagentUpdate, d)
}

// emitIdle says t's turn ended with work of its own still running (idle),
// or that it was woken.
func (m *Manager) emitIdle(t *Task, idle bool) {
	d := t.progress()
	d.Idle = idle
	m.emit(t, event.SubagentUpdate, d)
}

// Record is the reducer's record of t: its status, result or error.
func (m *Manager) Record(t *Task) lifecycle.Record {
	r, ok := m.cfg.Agents.Agent(t.ID)
	if !ok {
		// The reducer has every spawned agent (subagent.start is emitted
		// before Spawn returns); a missing one means Agents is not fed by
		// Sink.
		return lifecycle.Record{ID: t.ID, Name: t.Type.Name, Description: t.Spec.Description,
			Background: t.Spec.Background, Status: lifecycle.Error, Error: "no lifecycle record for " + t.ID}
	}
	return r
}

// run is the task's goroutine: wait for a slot, run the session, report.
func (m *Manager) run(ctx context.Context, t *Task, plan spawn.Plan, tk *ticket, queued bool) {
	defer m.wg.Done()
	var res *backend.Result
	var runErr error
	acquired := tk.wait(ctx) == nil
	if !acquired {
		runErr = fmt.Errorf("cancelled while queued: %w", ctx.Err())
	} else if queued {
		m.update(t, "")
	}
	if acquired {
		t.nest.hold(tk)
		res, runErr = m.runSession(ctx, t, plan)
		t.nest.giveBack()
	}
	m.finish(ctx, t, res, runErr)
}

// finish reports how t ended: OnFinish, then subagent.complete (which the
// reducer turns into the agent's final status), then Done.
func (m *Manager) finish(ctx context.Context, t *Task, res *backend.Result, err error) {
	cancelled := ctx.Err() != nil // before releasing ctx below
	if t.stopParent != nil {
		t.stopParent()
	}
	t.cancel()
	var out Outcome // its tool uses and usage are the bus's (the reducer's counts)
	switch {
	case err != nil && cancelled:
		out.Cancelled, out.Error = true, "cancelled"
	case err != nil:
		out.Error = err.Error()
	default:
		out.Success, out.Result = true, res.Text
		if strings.TrimSpace(res.Text) == "" {
			out.Result = "(the sub-agent finished without a final message)"
		}
	}
	if note := m.finishWorktree(ctx, t); note != "" {
		// The note is the lead's way to the branch: keep it past the cut.
		if out.Success {
			out.Result = cut(out.Result, m.cfg.MaxResult) + note
		} else {
			out.Error += note
		}
	}
	if m.remote(t) && t.started.CompareAndSwap(false, true) {
		m.emitStart(t) // no worker took it: its record still needs its session
	}
	parent := m.parentOf(t)
	switch {
	case parent != nil:
		parent.notify(t, out) // its parent, not the lead, is told
	case m.cfg.OnFinish != nil:
		m.cfg.OnFinish(t, out)
	}
	m.emit(t, event.SubagentComplete, out)
	t.end()
	if parent != nil {
		parent.wakeUp()
	}
}

// Wait blocks until t ends or ctx does, and returns its record.
func (m *Manager) Wait(ctx context.Context, t *Task) (lifecycle.Record, error) {
	select {
	case <-t.done:
		return m.Record(t), nil
	case <-ctx.Done():
		return m.Record(t), ctx.Err()
	}
}

// Result is one sub-agent's outcome, as SpawnParallel reports it.
type Result struct {
	lifecycle.Record
	Err error // spawn error (unknown type, closed manager)
}

// SpawnParallel starts every spec at once and waits for all of them; each
// result stands alone (a failure never cancels a sibling).
func (m *Manager) SpawnParallel(ctx context.Context, specs []Spec) []Result {
	out := make([]Result, len(specs))
	tasks := make([]*Task, len(specs))
	for i, s := range specs {
		t, err := m.Spawn(ctx, s)
		if err != nil {
			out[i].Err = err
			continue
		}
		tasks[i] = t
	}
	for i, t := range tasks {
		if t != nil {
			<-t.done // sync tasks end when ctx does
			out[i].Record = m.Record(t)
		}
	}
	return out
}

// Get finds a task by id.
func (m *Manager) Get(id string) (*Task, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	return t, ok
}

// Lookup is Get with an error naming the known ids.
func (m *Manager) Lookup(id string, backgroundOnly bool) (*Task, error) {
	if t, ok := m.Get(id); ok && (!backgroundOnly || t.Spec.Background) {
		return t, nil
	}
	var known []string
	for _, t := range m.Tasks() {
		if !backgroundOnly || t.Spec.Background {
			known = append(known, t.ID)
		}
	}
	if len(known) == 0 {
		return nil, fmt.Errorf("unknown task_id %q: there are no background tasks", id)
	}
	return nil, fmt.Errorf("unknown task_id %q; known task ids: %s", id, strings.Join(known, ", "))
}

// Tasks lists every task in spawn order.
func (m *Manager) Tasks() []*Task {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*Task(nil), m.order...)
}

// Cancel stops one task. Cancelling an ended task is not an error.
func (m *Manager) Cancel(id string) error {
	t, err := m.Lookup(id, false)
	if err != nil {
		return err
	}
	t.cancel()
	return nil
}

// CancelAll stops every task (interrupt, reset, model switch, quit) and
// gives up every reservation.
func (m *Manager) CancelAll() {
	m.mu.Lock()
	var calls []string
	for c := range m.reserved {
		calls = append(calls, c)
	}
	m.mu.Unlock()
	for _, c := range calls {
		m.Release(c)
	}
	for _, t := range m.Tasks() {
		t.cancel()
	}
}

// Close cancels every task and waits until all have ended and released
// their sessions. Spawn fails afterwards.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.CancelAll()
	m.stop()
	m.wg.Wait()
}
