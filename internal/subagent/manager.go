// Package subagent runs sub-agents: each is a fresh agent.Session with its
// own history, system prompt and tool set, given only the task prompt. The
// Manager caps how many run at once (the rest wait FIFO as pending), keeps
// every result independent (one failure or panic never touches a sibling),
// and closes every session on every path. The task tool and its background
// companions (check_task, wait_for_task, list_background_tasks,
// cancel_task) live here too.
package subagent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/agent"
	"github.com/atomic-agent/atomic/internal/agenttype"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/tools"
	"github.com/atomic-agent/atomic/internal/usage"
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
	Types *agenttype.Registry
	// Tools is every tool a sub-agent may get (no orchestration tools):
	// general-purpose gets all of it, other types a subset by name.
	Tools *tools.Set
	Gate  *permission.Gate
	Meter *usage.Meter
	Sink  event.Sink
	// MaxConcurrent caps running sub-agents (0: DefaultMaxConcurrent).
	MaxConcurrent int
	// MaxTurns bounds each sub-agent's model requests (0: agent default).
	MaxTurns  int
	MaxResult int
	// System is the base system prompt; the type's prompt is appended.
	System string
	Now    func() time.Time
	// OnFinish is called when a task ends, before its subagent.complete
	// is emitted (so a woken lead already has the result queued).
	OnFinish func(*Task)
}

// Manager starts and tracks sub-agents. Safe for concurrent use.
type Manager struct {
	cfg   Config
	slots *slots
	base  context.Context
	stop  context.CancelFunc
	wg    sync.WaitGroup

	mu     sync.Mutex
	closed bool
	tasks  map[string]*Task
	order  []*Task
	counts map[string]int
}

// New returns a Manager. Close it to cancel and wait for all tasks.
func New(cfg Config) *Manager {
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.MaxResult <= 0 {
		cfg.MaxResult = DefaultMaxResult
	}
	if cfg.Types == nil {
		cfg.Types = agenttype.NewRegistry()
	}
	if cfg.Tools == nil {
		cfg.Tools = tools.NewSet()
	}
	if cfg.Meter == nil {
		cfg.Meter = usage.NewMeter()
	}
	if cfg.Sink == nil {
		cfg.Sink = event.Discard
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	base, stop := context.WithCancel(context.Background())
	return &Manager{cfg: cfg, slots: newSlots(cfg.MaxConcurrent), base: base, stop: stop,
		tasks: map[string]*Task{}, counts: map[string]int{}}
}

// WillQueue reports whether a task spawned now would wait for a slot.
func (m *Manager) WillQueue() bool { return m.slots.full() }

// SetModel changes the model inherited by sub-agents spawned from now on.
func (m *Manager) SetModel(model string) {
	m.mu.Lock()
	m.cfg.Model = model
	m.mu.Unlock()
}

// MaxConcurrent is the cap on running sub-agents.
func (m *Manager) MaxConcurrent() int { return m.cfg.MaxConcurrent }

// Types is the agent type registry.
func (m *Manager) Types() *agenttype.Registry { return m.cfg.Types }

// ErrClosed is returned by Spawn after Close.
var ErrClosed = errors.New("sub-agent manager is closed")

// Spawn starts a sub-agent and returns at once. A sync task (not
// Spec.Background) is also cancelled when ctx ends; a background task lives
// until it finishes, is cancelled, or the manager closes.
func (m *Manager) Spawn(ctx context.Context, spec Spec) (*Task, error) {
	typ, err := m.cfg.Types.Lookup(spec.Type)
	if err != nil {
		return nil, err
	}
	set := m.cfg.Tools
	if typ.Tools != nil {
		if set, err = m.cfg.Tools.Only(typ.Tools...); err != nil {
			return nil, fmt.Errorf("agent type %s (%s): %w", typ.Name, typ.Source, err)
		}
	}
	model := typ.Model
	m.mu.Lock()
	if model == "" || model == "inherit" || isClaudeAlias(model) {
		model = m.cfg.Model
	}
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	m.counts[typ.Name]++
	id := fmt.Sprintf("%s-%d", strings.ToLower(typ.Name), m.counts[typ.Name])
	tctx, cancel := context.WithCancel(m.base)
	t := &Task{ID: id, Spec: spec, Type: typ, Model: model, SessionID: m.cfg.SessionID + "/" + id,
		cancel: cancel, done: make(chan struct{}), state: StateQueued, started: m.cfg.Now()}
	if !spec.Background {
		t.stopParent = context.AfterFunc(ctx, cancel)
	}
	m.tasks[id] = t
	m.order = append(m.order, t)
	m.wg.Add(1)
	m.mu.Unlock()

	tk := m.slots.join() // queue position follows Spawn calls
	m.emit(t, event.SubagentStart, event.SubagentStartData{
		AgentType: typ.Name, Description: spec.Description, Prompt: spec.Prompt,
		Background: spec.Background, Model: model,
	})
	queued := tk.queued()
	if queued {
		m.update(t, "slot")
	} else {
		// Running at once; this also corrects a task call announced as
		// queued whose slot freed up before the spawn.
		m.update(t, "")
	}
	go m.run(tctx, t, set, tk, queued)
	return t, nil
}

// isClaudeAlias reports Claude Code's model aliases, which agent files
// written for Claude Code use; they inherit the caller's model here.
func isClaudeAlias(m string) bool {
	switch m {
	case "sonnet", "opus", "haiku":
		return true
	}
	return false
}

func (m *Manager) emit(t *Task, typ event.Type, data any) {
	m.cfg.Sink.Emit(event.Event{Type: typ, Time: m.cfg.Now(), SessionID: t.SessionID,
		AgentID: t.ID, ParentAgentID: t.Spec.ParentID, ToolCallID: t.Spec.ToolCallID, Data: data})
}

func (m *Manager) update(t *Task, waiting string) {
	i := t.Info()
	m.emit(t, event.SubagentUpdate, event.SubagentUpdateData{
		CurrentTool: i.CurrentTool, ToolUses: i.ToolUses, Usage: i.Usage, Waiting: waiting,
	})
}

// SetWaiting reports that agent id waits for something (an approval), or
// no longer waits (""), so its row can say so.
func (m *Manager) SetWaiting(id, what string) {
	if t, ok := m.Get(id); ok && !t.Info().State.Done() {
		m.update(t, what)
	}
}

// run is the task's goroutine: wait for a slot, run the session, report.
func (m *Manager) run(ctx context.Context, t *Task, set *tools.Set, tk *ticket, queued bool) {
	defer m.wg.Done()
	var res *agent.Result
	var runErr error
	acquired := tk.wait(ctx) == nil
	if !acquired {
		runErr = fmt.Errorf("cancelled while queued: %w", ctx.Err())
	} else if queued {
		m.update(t, "")
	}
	if acquired {
		t.setState(StateRunning)
		res, runErr = m.runSession(ctx, t, set)
		m.slots.release()
	}
	m.finish(ctx, t, res, runErr)
}

// runSession runs the sub-agent's own session; a panic becomes an error.
func (m *Manager) runSession(ctx context.Context, t *Task, set *tools.Set) (res *agent.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("sub-agent %s panicked: %v", t.ID, p)
		}
	}()
	system := m.cfg.System
	if t.Type.Prompt != "" {
		system = strings.TrimSpace(system + "\n\n" + t.Type.Prompt)
	}
	s := agent.New(agent.Config{
		SessionID: t.SessionID, ID: t.ID, ParentID: t.Spec.ParentID, Name: t.Type.Name,
		Provider: m.cfg.Provider, Model: t.Model, System: system, Tools: set,
		Gate: m.cfg.Gate, Meter: m.cfg.Meter, Sink: &progressSink{m: m, t: t, set: set},
		MaxTurns: m.cfg.MaxTurns, Now: m.cfg.Now,
	})
	return s.Run(ctx, t.Spec.Prompt)
}

func (m *Manager) finish(ctx context.Context, t *Task, res *agent.Result, err error) {
	cancelled := ctx.Err() != nil // before releasing ctx below
	if t.stopParent != nil {
		t.stopParent()
	}
	t.cancel()
	t.mu.Lock()
	t.ended = m.cfg.Now()
	switch {
	case err != nil && cancelled:
		t.state, t.err = StateCancelled, "cancelled"
	case err != nil:
		t.state, t.err = StateFailed, err.Error()
	default:
		t.state, t.result = StateCompleted, res.Text
	}
	if res != nil && t.state == StateCompleted && strings.TrimSpace(res.Text) == "" {
		t.result = "(the sub-agent finished without a final message)"
	}
	data := event.SubagentCompleteData{
		Success: t.state == StateCompleted, Result: t.result, Error: t.err,
		Cancelled: t.state == StateCancelled, ToolUses: t.toolUses, Usage: t.usage,
	}
	t.mu.Unlock()
	if m.cfg.OnFinish != nil {
		m.cfg.OnFinish(t)
	}
	m.emit(t, event.SubagentComplete, data)
	close(t.done)
}

// Wait blocks until t ends or ctx does.
func (m *Manager) Wait(ctx context.Context, t *Task) (Info, error) {
	select {
	case <-t.done:
		return t.Info(), nil
	case <-ctx.Done():
		return t.Info(), ctx.Err()
	}
}

// Result is one sub-agent's outcome, as SpawnParallel reports it.
type Result struct {
	Info
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
			out[i].Info = t.Info()
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

// Active counts tasks not yet ended.
func (m *Manager) Active() int {
	n := 0
	for _, t := range m.Tasks() {
		select {
		case <-t.done:
		default:
			n++
		}
	}
	return n
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

// CancelAll stops every task (interrupt, reset, model switch, quit).
func (m *Manager) CancelAll() {
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
	m.stop()
	m.wg.Wait()
}

// WaitIdle blocks until no task is running, or ctx ends.
func (m *Manager) WaitIdle(ctx context.Context) error {
	for {
		var pending *Task
		for _, t := range m.Tasks() {
			select {
			case <-t.done:
			default:
				pending = t
			}
			if pending != nil {
				break
			}
		}
		if pending == nil {
			return nil
		}
		select {
		case <-pending.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
