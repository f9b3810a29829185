package team

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/lazy"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/tools"
)

// DefaultMaxTeammates caps live teammates when Config.MaxTeammates is 0.
const DefaultMaxTeammates = 10

// User is the sender name of messages the user sends from the UI.
const User = "user"

// AgentID is a teammate's agent id in events: "team/<name>".
func AgentID(name string) string { return "team/" + name }

// Config builds a Manager.
type Config struct {
	SessionID string
	Provider  provider.Provider
	// Model is the lead's model, inherited by agent types that name none.
	Model string
	Types *spawn.Registry
	// Tools is every tool a teammate may draw from (no orchestration
	// tools): general-purpose gets all of it, other types a subset by
	// name. The messaging tools are added to every teammate.
	Tools *tools.Set
	Gate  *permission.Gate
	Sink  event.Sink
	// Agents is the one state of every agent: the lifecycle reducer fed by
	// Sink. Nil: Sink itself when it is a *bus.Bus, else a private bus
	// that forwards every event to Sink.
	Agents Agents
	// MaxTeammates caps live teammates (0: DefaultMaxTeammates).
	MaxTeammates int
	// MaxTurns bounds the model requests of each teammate turn (0: the
	// agent default).
	MaxTurns int
	// Context sizes each native teammate's window and when it compacts.
	Context backend.ContextPolicy
	// Effort is the lead's thinking level, which teammates inherit.
	Effort provider.Effort
	// Workspace is the workspace root, named in teammates' system prompt.
	Workspace string
	Now       func() time.Time
	// DeliverToLead queues a message for the lead and wakes it when idle.
	// Teammates' messages, failures and the all-idle notice arrive this
	// way. Nil drops them (a Manager without a lead, in tests).
	DeliverToLead func(text string)
	// Backends builds the session of a teammate whose agent type names
	// another backend (a mixed tree); nil: such types cannot be spawned.
	Backends backend.Factory
	// NameAgent names the sub-agents an external CLI teammate starts, so
	// that ids stay unique in the whole tree (nil: the CLI session counts
	// on its own).
	NameAgent func(agentType string) string
	// Memory is the project memory block that ends every native
	// teammate's system prompt ("" for none).
	Memory string
	// History, when set, is given each native teammate's whole history
	// after each change (the session store); it must only queue.
	History func(agentID string, msgs []provider.Message)
	// Owners is the run's owner registry: the manager registers each
	// teammate it spawns, and the sink of an external CLI teammate each
	// sub-agent that CLI starts. Nil: a registry of its own.
	Owners *bus.Owners
	// Hooks are the user's hooks each native teammate runs (nil: none).
	Hooks *hooks.Runner
	// Shells are the run's background shells: a teammate's that still
	// run when it ends are stopped (nil: none).
	Shells *tools.Shells
	// Nest lets a native teammate whose type nests start sub-agents (the
	// run's sub-agent manager); nil: teammates start none.
	Nest Nester
}

// Nester adds task and its companions to set for teammate id, whose
// sub-agents live under ctx and wake it through wake. attach gives it
// the teammate's session (told of its background sub-agents' ends);
// release forgets the teammate once it ended.
type Nester func(ctx context.Context, id string, set *tools.Set, wake chan struct{}) (attach func(backend.Session), release func())

// Agents reads the lifecycle reducer's teammates.
type Agents interface {
	Teammate(name string) (lifecycle.Teammate, bool)
	Teammates() []lifecycle.Teammate
	ActiveTeammates() int
	// ToolUses and Usage are the reducer's counts of one agent.
	ToolUses(agentID string) int
	Usage(agentID string) event.Usage
}

// Info is one teammate as the UI shows it.
type Info struct {
	Name    string
	Role    string
	AgentID string
	Type    string
	Model   string
	Status  Status
	Error   string
	Started time.Time
	// Ended is zero while the teammate is active.
	Ended    time.Time
	ToolUses int
	Usage    event.Usage
}

// Manager runs one lead's team. Safe for concurrent use.
type Manager struct {
	cfg Config
	// open resolves each teammate's type and opens its session.
	open *spawn.Opener
	base context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	// spawnMu serialises spawns, so the cap check and the spawning
	// status it is checked against cannot interleave.
	spawnMu sync.Mutex

	// emitMu orders events: a status change is checked against the
	// reducer, emitted and (for the all-idle notice) read back as one step.
	emitMu sync.Mutex

	mu       sync.Mutex
	closed   bool
	team     string
	mates    map[string]*mate
	idleNote bool // the lead was told that every teammate is idle
}

// New returns a Manager. Close it to stop every teammate and wait for them.
func New(cfg Config) *Manager {
	if cfg.MaxTeammates <= 0 {
		cfg.MaxTeammates = DefaultMaxTeammates
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
	if cfg.DeliverToLead == nil {
		cfg.DeliverToLead = func(string) {}
	}
	if cfg.Owners == nil {
		cfg.Owners = bus.NewOwners()
	}
	base, stop := context.WithCancel(context.Background())
	open := spawn.New(spawn.Config{Provider: cfg.Provider, Model: cfg.Model, Types: cfg.Types, Tools: cfg.Tools,
		Gate: cfg.Gate, MaxTurns: cfg.MaxTurns, Context: cfg.Context, Effort: cfg.Effort, Workspace: cfg.Workspace, Now: cfg.Now, CLIs: cfg.Backends,
		NameAgent: cfg.NameAgent, History: cfg.History, Hooks: cfg.Hooks})
	return &Manager{cfg: cfg, open: open, base: base, stop: stop, mates: map[string]*mate{}}
}

// Errors callers may test for.
var (
	ErrClosed = errors.New("team manager is closed")
	ErrNoTeam = errors.New("there is no team: call team_create first")
)

// MaxTeammates is the cap on live teammates.
func (m *Manager) MaxTeammates() int { return m.cfg.MaxTeammates }

// Team is the current team's name ("" when there is none).
func (m *Manager) Team() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.team
}

// SetModel changes the model inherited by teammates spawned from now on.
func (m *Manager) SetModel(model string) { m.open.SetModel(model) }

// Active counts teammates spawning, working or idle, from the reducer.
func (m *Manager) Active() int {
	return m.cfg.Agents.ActiveTeammates()
}

// Teammates lists the teammates of this run (each name's latest
// incarnation) in the order they were first spawned.
func (m *Manager) Teammates() []Info {
	members := m.cfg.Agents.Teammates()
	out := make([]Info, 0, len(members))
	for _, mb := range members {
		i := Info{Name: mb.Name, Role: mb.Role, AgentID: mb.AgentID, Status: mb.Status,
			Error: mb.Error, Started: mb.Started, Ended: mb.Ended}
		if t := m.mate(mb.Name); t != nil {
			i.Type, i.Model = t.typ.Name, t.session.Model()
			i.ToolUses, i.Usage = m.cfg.Agents.ToolUses(t.id), m.cfg.Agents.Usage(t.id)
		}
		out = append(out, i)
	}
	return out
}

func (m *Manager) mate(name string) *mate {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mates[name]
}

// mateWithID is the teammate whose agent id is id, if any: an id is looked
// up, never parsed.
func (m *Manager) mateWithID(id string) *mate {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.mates {
		if t.id == id {
			return t
		}
	}
	return nil
}

// status is a teammate's status as the reducer has it.
func (m *Manager) status(name string) (Status, bool) {
	mb, ok := m.cfg.Agents.Teammate(name)
	return mb.Status, ok
}

// Create starts the lead's team. A lead has one team at a time.
func (m *Manager) Create(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("team name is empty")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.closed:
		return ErrClosed
	case m.team == name:
		return fmt.Errorf("team %q already exists; spawn teammates into it with team_spawn", name)
	case m.team != "":
		return fmt.Errorf("a lead has one team and team %q already exists; call team_delete first to start another", m.team)
	}
	m.team, m.idleNote = name, false
	return nil
}

// SpawnSpec describes a teammate to start.
type SpawnSpec struct {
	Name   string
	Role   string
	Prompt string
	// Type is the agent type (default general-purpose).
	Type string
}

var validName = lazy.Regexp{Expr: `^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$`}

// Spawn starts a teammate and returns once it is registered (status
// spawning); its session works in its own goroutine, started with the
// prompt, until it is shut down, stopped or fails.
func (m *Manager) Spawn(spec SpawnSpec) (Info, error) {
	spec.Name = strings.TrimSpace(spec.Name)
	spec.Role = strings.TrimSpace(spec.Role)
	switch {
	case !validName.Get().MatchString(spec.Name):
		return Info{}, fmt.Errorf("teammate name %q is not valid: use 1 to 40 letters, digits, '-', '_' or '.', starting with a letter or digit", spec.Name)
	case strings.EqualFold(spec.Name, event.LeadID) || strings.EqualFold(spec.Name, User):
		return Info{}, fmt.Errorf("teammate name %q is reserved: choose another name", spec.Name)
	case strings.TrimSpace(spec.Prompt) == "":
		return Info{}, errors.New("prompt is empty: say what the teammate should do")
	}
	plan, err := m.open.Lookup(spec.Type)
	if err != nil {
		return Info{}, err
	}
	typ := plan.Type
	if !plan.External() {
		plan.Tools = plan.Tools.Without() // a copy: the messaging tools are added to it
		for _, t := range MateTools(m) {
			plan.Tools.Add(t)
		}
		m.cfg.Shells.Follow(AgentID(spec.Name), plan.Tools)
	}
	if spec.Role == "" {
		spec.Role = typ.Name
	}

	m.spawnMu.Lock()
	defer m.spawnMu.Unlock()
	m.mu.Lock()
	team := m.team
	old := m.mates[spec.Name]
	closed := m.closed
	m.mu.Unlock()
	switch {
	case closed:
		return Info{}, ErrClosed
	case team == "":
		return Info{}, ErrNoTeam
	case old != nil && !old.ended():
		if st, _ := m.status(spec.Name); !st.Terminal() {
			return Info{}, fmt.Errorf("teammate %q already exists (%s); message it with send_message or pick another name", spec.Name, st)
		}
		// Its end is reported and its goroutine is returning: let it, so
		// the new incarnation's events follow the old one's.
		<-old.done
	}
	if n := m.Active(); n >= m.cfg.MaxTeammates {
		return Info{}, fmt.Errorf("the team is full: %d of %d teammates are active (--max-teammates %d); shut one down with shutdown_request before spawning another",
			n, m.cfg.MaxTeammates, m.cfg.MaxTeammates)
	}

	id := AgentID(spec.Name)
	ctx, cancel := context.WithCancel(m.base)
	t := &mate{name: spec.Name, role: spec.Role, id: id, sessionID: m.cfg.SessionID + "/" + id, typ: typ, team: team, prompt: spec.Prompt,
		cancel: cancel, wake: make(chan struct{}, 1), done: make(chan struct{})}
	ss := spawn.Spec{SessionID: t.sessionID, AgentID: id, ParentID: event.LeadID, Name: spec.Name, Sink: m.cfg.Sink}
	attach, release := func(backend.Session) {}, func() {}
	if m.cfg.Nest != nil && !plan.External() && spawn.Nests(typ) {
		attach, release = m.cfg.Nest(ctx, id, plan.Tools, t.wake)
	}
	t.release = release
	if t.cli = plan.External(); t.cli {
		t.prompt = cliAssignment(t)
		ss.Sink = childSink{m, t} // the CLI's own sub-agents are registered as it announces them
	} else {
		ss.System = systemPrompt(m.cfg.Workspace, team, spec.Name, spec.Role, typ, m.cfg.Memory)
	}
	if t.session, err = m.open.Open(plan, ss); err != nil {
		cancel()
		release()
		return Info{}, err
	}
	attach(t.session)
	m.mu.Lock()
	if m.closed {
		// Close ran meanwhile: it must not return with this teammate
		// running, so the closed check and wg.Add share one lock.
		m.mu.Unlock()
		cancel()
		release()
		t.session.Close()
		return Info{}, ErrClosed
	}
	m.mates[spec.Name] = t
	m.wg.Add(1)
	m.mu.Unlock()
	m.register(t)
	m.setStatus(t, Spawning, "")
	go m.run(ctx, t)
	return Info{Name: t.name, Role: t.role, AgentID: id, Type: typ.Name, Model: t.session.Model(), Status: Spawning}, nil
}

// running returns the teammates whose goroutines have not ended, by name.
func (m *Manager) running() []*mate {
	return m.mateList(func(t *mate) bool { return !t.ended() })
}

// reachable returns the teammates that take messages: running and not
// asked to end.
func (m *Manager) reachable() []*mate {
	return m.mateList(func(t *mate) bool { return !t.ended() && !t.leaving() })
}

func (m *Manager) mateList(keep func(*mate) bool) []*mate {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*mate, 0, len(m.mates))
	for _, t := range m.mates {
		if keep(t) {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// names lists the reachable teammates, for error messages.
func (m *Manager) names() string {
	var n []string
	for _, t := range m.reachable() {
		n = append(n, t.name)
	}
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, ", ")
}

// RequestShutdown asks teammate name to finish its current turn and end.
// An idle teammate ends at once. It does not wait.
func (m *Manager) RequestShutdown(name string) (Status, error) {
	t, err := m.lookup(name)
	if err != nil {
		return "", err
	}
	t.requestShutdown()
	st, _ := m.status(name)
	return st, nil
}

// Stop force-stops teammate name: a turn in progress is cut off
// (interrupted); an idle teammate is shut down. Stopping a teammate that
// already ended is not an error.
func (m *Manager) Stop(name string) error {
	t := m.mate(name)
	if t == nil && m.Team() == "" {
		return fmt.Errorf("no teammate %q: there is no team yet", name)
	}
	if t == nil {
		return fmt.Errorf("no teammate %q; teammates: %s", name, m.names())
	}
	t.halt(stopForced)
	return nil
}

// StopAll force-stops every teammate (see Stop).
func (m *Manager) StopAll() {
	for _, t := range m.running() {
		t.halt(stopForced)
	}
}

// Interrupt stops every teammate as interrupted (Esc, Ctrl+C, a reset, a
// model switch). It does not wait for them to end.
func (m *Manager) Interrupt() {
	for _, t := range m.running() {
		t.halt(stopInterrupt)
	}
}

// Reset interrupts every teammate and forgets the team (/clear: the lead no
// longer knows it had one).
func (m *Manager) Reset() {
	m.Interrupt()
	m.mu.Lock()
	m.team = ""
	m.mu.Unlock()
}

// Delete force-stops every teammate, waits until they have ended (or ctx
// does) and removes the team. It reports each teammate's final status.
func (m *Manager) Delete(ctx context.Context) ([]Info, error) {
	m.mu.Lock()
	team := m.team
	m.mu.Unlock()
	if team == "" {
		return nil, ErrNoTeam
	}
	mates := m.running()
	for _, t := range mates {
		t.halt(stopForced)
	}
	for _, t := range mates {
		select {
		case <-t.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("team_delete: teammates still stopping: %w", ctx.Err())
		}
	}
	m.mu.Lock()
	m.team = ""
	m.mu.Unlock()
	var out []Info
	for _, i := range m.Teammates() {
		for _, t := range mates {
			if t.name == i.Name {
				out = append(out, i)
			}
		}
	}
	return out, nil
}

// Close interrupts every teammate and waits for all of their goroutines
// to end. Spawn fails afterwards.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.Interrupt()
	m.stop()
	m.wg.Wait()
}

// Wait blocks until no teammate goroutine is left or ctx ends.
func (m *Manager) Wait(ctx context.Context) error {
	for _, t := range m.running() {
		select {
		case <-t.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// lookup finds a live teammate by name, with an error naming the others.
func (m *Manager) lookup(name string) (*mate, error) {
	name = strings.TrimSpace(name)
	t := m.mate(name)
	if t == nil {
		if m.Team() == "" {
			return nil, fmt.Errorf("no teammate %q: %w", name, ErrNoTeam)
		}
		return nil, fmt.Errorf("no teammate %q; teammates: %s", name, m.names())
	}
	if st, _ := m.status(name); t.ended() || st.Terminal() {
		return nil, fmt.Errorf("teammate %q has ended (%s); teammates: %s", name, st, m.names())
	}
	if t.leaving() {
		return nil, fmt.Errorf("teammate %q is shutting down; teammates: %s", name, m.names())
	}
	return t, nil
}

// setStatus emits a teammate's status change; repeats (and late changes of
// an ended teammate) are dropped, as the reducer would ignore them.
func (m *Manager) setStatus(t *mate, st Status, errText string) {
	e := event.Event{Type: event.TeammateStatus, Time: m.cfg.Now(), SessionID: t.sessionID,
		AgentID: t.id, ParentAgentID: event.LeadID,
		Data: event.TeammateStatusData{Name: t.name, Role: t.role, Type: t.typ.Name, Status: string(st), Error: errText}}
	m.emitMu.Lock()
	cur, known := m.cfg.Agents.Teammate(t.name)
	_, changed := lifecycle.StepTeammate(cur, known, e)
	note := ""
	if changed {
		m.cfg.Sink.Emit(e)
		note = m.idleNotice(st)
	}
	m.emitMu.Unlock()
	if note != "" {
		m.cfg.DeliverToLead(note)
	}
}

// idleNotice returns the notice for the lead, once per episode, when every
// live teammate is idle (the last busy one went idle or ended): nothing will
// happen until someone sends a message or shuts them down, and a lead that
// waits for them would wait forever. An episode ends when a teammate works
// again. It reads the reducer under emitMu, so no status change can come
// between the scan and its verdict.
func (m *Manager) idleNotice(st Status) string {
	if st == Working {
		m.mu.Lock()
		m.idleNote = false
		m.mu.Unlock()
		return ""
	}
	if !st.Terminal() && st != Idle {
		return "" // spawning: the new teammate is about to work
	}
	var idle []string
	for _, mb := range m.cfg.Agents.Teammates() {
		switch mb.Status {
		case Idle:
			idle = append(idle, mb.Name)
		case Spawning, Working, Waiting:
			return "" // waiting: its own agents' or shells' ends wake it
		}
	}
	if len(idle) == 0 {
		return ""
	}
	for _, name := range idle {
		if t := m.mate(name); t != nil && t.session.Pending() {
			return "" // a message is on its way to it
		}
	}
	m.mu.Lock()
	noted := m.idleNote
	m.idleNote = true
	m.mu.Unlock()
	if noted {
		return ""
	}
	return fmt.Sprintf("<team-notification>\nAll teammates are idle, waiting for messages: %s. "+
		"Send more work with send_message or broadcast, or end them with shutdown_request (or team_delete) so the run can finish.\n</team-notification>",
		strings.Join(idle, ", "))
}
