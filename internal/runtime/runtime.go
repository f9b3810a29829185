// Package runtime wires one run of Atomic: the lead session, the sub-agent
// manager, and the event bus with its lifecycle state (which also counts
// every agent's tool uses and usage). Its
// driver loop serialises the lead's turns (user prompts and wake-ups), wakes
// the idle lead when background work finishes, and emits the lead's
// complete only when no sub-agent or teammate is still active; until then
// it emits usage.update.
package runtime

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/checkpoint"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/sandbox"
	"github.com/atomic-agent/atomic/internal/skills"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/subagent"
	"github.com/atomic-agent/atomic/internal/team"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Config builds a Runtime.
type Config struct {
	SessionID string
	Provider  provider.Provider
	Model     string
	Workspace tools.Workspace
	Gate      *permission.Gate
	Types     *spawn.Registry
	// Memory is the project memory block (memory.Memory.Prompt) that the
	// system prompts of the lead, sub-agents and teammates end with.
	Memory string
	// SystemPrompt, when set, replaces the lead's own prompt (the memory
	// still ends it); AppendSystemPrompt ends the lead's prompt. Claude
	// Code's --system-prompt and --append-system-prompt.
	SystemPrompt, AppendSystemPrompt string
	// NestedMemory, when set, wraps the read tool so an agent reading a
	// file below the workspace gets that folder's CLAUDE.md and AGENTS.md
	// (memory.WithNested).
	NestedMemory func(read tools.Tool) tools.Tool
	// Skills are offered to every agent whose type does not list its
	// tools, through the skill tool (none: no tool).
	Skills *skills.Set
	// MaxSubagents caps concurrent local sub-agents (0: default 5).
	MaxSubagents int
	// MaxDepth is how many levels of sub-agents may be below the lead (0:
	// subagent.DefaultMaxDepth).
	MaxDepth int
	// MaxRemoteTasks caps the sub-agents on Remote's workers at once (0:
	// no cap of the lead's; the workers' concurrency bounds them).
	MaxRemoteTasks int
	// Teams offers the lead the team tools (team_create, team_spawn, …);
	// without it they are held (callable, never offered: tools.Set.Hold)
	// and the lead's prompt does not speak of teams.
	Teams bool
	// MaxTeammates caps live teammates (0: team.DefaultMaxTeammates).
	MaxTeammates int
	// MaxTurns bounds model requests per lead turn and per sub-agent.
	MaxTurns int
	// Context sizes each native agent's window and when it compacts.
	Context backend.ContextPolicy
	// Effort is the lead's thinking level, inherited by every agent whose
	// file says no effort: (--effort, config effort).
	Effort provider.Effort
	// HoldWakes keeps Atomic's own lead asleep between prompts: what
	// arrives for it (a background task's result, a teammate's message)
	// joins the next prompt's turn instead of starting one of its own,
	// for clients that show a turn only as the answer to a prompt (ACP).
	// An external CLI lead's own turns are the CLI's and are not held.
	HoldWakes bool
	// CancelOnLeadError cancels all sub-agents when a lead turn fails, so
	// a headless run can end; the TUI leaves them running.
	CancelOnLeadError bool
	// Checkpoints keeps, per prompt, the files the agents change before
	// their first change, in memory, for /rewind.
	Checkpoints bool
	// NewLead builds the lead's session on another backend (an external
	// agent CLI) from the run's settings; nil runs the native loop.
	NewLead func(backend.Config) (backend.Session, error)
	// Backends builds the sessions of sub-agents and teammates whose agent
	// type names another backend (a mixed tree); nil: those types fail to
	// start, saying so.
	Backends backend.Factory
	// Remote, when set, sends the sub-agents it takes to NATS workers.
	Remote *remote.Dispatcher
	// Journal records the run (the session store); nil records nothing.
	Journal Journal
	// Resume continues a stored session (SessionID is its id): the native
	// lead takes up its history, usage so far is restored, and the work
	// it left under way is ended interrupted when Serve starts.
	Resume *Resume
	// MCP runs the session's MCP servers (started by the caller, so they
	// come up while the rest starts); their tools join every agent's set
	// as each server comes up, and the runtime closes them. Nil: none.
	MCP *mcp.Manager
	// MCPStartupBudget is how long the lead's first request waits for
	// servers still starting (0: mcp.DefaultStartupBudget).
	MCPStartupBudget time.Duration
	// Warn is told, once each, about what the run goes on without (an MCP
	// tool a sub-agent's type names but no server offers); it must not
	// block.
	Warn func(string)
	Now  func() time.Time
	// Hooks are the user's Claude Code hooks (settings files), which every
	// native agent of the run runs in the workspace, under its sandbox,
	// with the environment its commands get.
	Hooks hooks.Config
}

// Journal is told everything a run does, to keep it: every event from the
// first (it is subscribed before the lead is built), each user prompt
// before the lead is given it, and the history of every native agent (the
// lead, sub-agents, teammates) after each change. Its methods must only
// queue.
type Journal interface {
	event.Sink
	Prompt(text string)
	History(agentID string, msgs []provider.Message)
}

// Outcome is what a settled run produced: the payload of its complete.
type Outcome struct {
	Result   string
	Err      error
	NumTurns int
	Usage    event.Usage
}

// Runtime is one run. Start it with Start (Serve is its driver loop).
type Runtime struct {
	cfg  Config
	bus  *bus.Bus
	mgr  *subagent.Manager
	team *team.Manager
	lead backend.Session
	// leadTools is the native lead's tool set, read on each request.
	leadTools *tools.Set
	// owners records who runs each agent of the tree: cancels and the
	// completion gate read it.
	owners *bus.Owners
	// shells are the background shells of every agent's bash.
	shells *tools.Shells
	// stops are the shell stops under way (interrupt, reset, /tasks),
	// closed as each ends; Close waits for them.
	stopMu sync.Mutex
	stops  []chan struct{}

	inputs    chan input
	wake      chan struct{}
	completed chan Outcome
	journal   *bus.Subscription // the session store's; nil without one
	own       *bus.Subscription // the runtime's own subscriber
	resumed   *resumed          // nil: a new session
	cps       *checkpoint.Store // nil: checkpoints off
	mcpReady  sync.Once

	mu         sync.Mutex
	turnCancel context.CancelFunc
	busy       bool
	resets     int    // Resets queued and not yet carried out
	gen        uint64 // counts interrupts
	dirty      bool   // work happened since the last complete
	numTurns   int
	lastText   string
	leadErr    error
}

// New builds a runtime whose lead is the native loop; nothing runs until
// Serve. A lead on another backend (cfg.NewLead) can fail to start: use
// Open for it.
func New(cfg Config) *Runtime {
	if cfg.NewLead != nil {
		panic("runtime.New cannot report a backend that fails to start: use runtime.Open")
	}
	r, _ := Open(cfg)
	return r
}

// Open builds the runtime, its lead on cfg.NewLead's backend when set;
// nothing runs until Serve. It fails when that backend cannot start.
func Open(cfg Config) (*Runtime, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SessionID == "" {
		cfg.SessionID = NewSessionID(cfg.Now())
	}
	if cfg.Types == nil {
		cfg.Types = spawn.NewRegistry()
	}
	if cfg.Model == "" && cfg.Provider != nil {
		cfg.Model = cfg.Provider.Model()
	}
	r := &Runtime{cfg: cfg, bus: bus.New(), owners: bus.NewOwners(),
		inputs: make(chan input, 16), wake: make(chan struct{}, 1), completed: make(chan Outcome, 4)}
	if cfg.Journal != nil {
		r.journal = r.bus.SubscribeWith(cfg.Journal.Emit, bus.Options{Name: "journal"})
	}
	r.shells = r.newShells()
	if cfg.Checkpoints {
		r.cps = checkpoint.New(0)
		cfg.Workspace.Checkpoint = r.cps.Save
		r.cfg.Workspace.Checkpoint = r.cps.Save
	}
	cfg.Workspace.Shells = r.shells // every agent's bash, worktrees' too
	r.cfg.Workspace.Shells = r.shells
	core := CoreTools(cfg.Workspace)
	r.addClaudeTools(core)
	var leadHistory []provider.Message
	if cfg.Resume != nil {
		r.resumed = replay(cfg.Resume.Events)
		leadHistory = cfg.Resume.History
	}
	var history func(string, []provider.Message)
	if cfg.Journal != nil {
		// In the store's order after every event emitted before it, as
		// when the bus delivered under its lock.
		history = func(agentID string, msgs []provider.Message) {
			_ = r.journal.Flush(context.Background())
			cfg.Journal.History(agentID, msgs)
		}
	}
	hooked := hookRunner(cfg)
	if cfg.Gate != nil {
		// Prompts name the asking agent's place in the tree.
		cfg.Gate.SetPathOf(func(id string) string { return strings.Join(lifecycle.Path(id, r.bus.Agent), lifecycle.PathSep) })
	}
	r.mgr = subagent.New(subagent.Config{
		SessionID: cfg.SessionID, Provider: cfg.Provider, Model: cfg.Model, Types: cfg.Types,
		Tools: core, Gate: cfg.Gate, Sink: r.bus,
		MaxConcurrent: cfg.MaxSubagents, MaxDepth: cfg.MaxDepth, MaxRemote: cfg.MaxRemoteTasks, MaxTurns: cfg.MaxTurns, Context: cfg.Context, Effort: cfg.Effort,
		System: SubagentSystemPrompt(cfg.Workspace, cfg.Memory), Now: cfg.Now, OnFinish: r.onTaskFinish,
		Agents: r.bus, Workspace: cfg.Workspace.Root, Backends: cfg.Backends, History: history,
		Warn: cfg.Warn, Remote: cfg.Remote, Owners: r.owners, Hooks: hooked,
		BeforeMerge: r.beforeMerge,
		FileTools: func(root string) *tools.Set {
			ws := cfg.Workspace
			ws.Root = root
			ws.Checkpoint = nil // the merge is what reaches the lead's tree
			// Its commands write only in its worktree, not the lead's tree.
			ws.Sandbox = ws.Sandbox.Narrow(root)
			return tools.Core(ws)
		},
		Sandbox: sandboxMode(cfg.Workspace), Shells: r.shells,
	})
	r.team = team.New(team.Config{
		SessionID: cfg.SessionID, Provider: cfg.Provider, Model: cfg.Model, Types: cfg.Types,
		Tools: core, Gate: cfg.Gate, Sink: r.bus, MaxTeammates: cfg.MaxTeammates,
		MaxTurns: cfg.MaxTurns, Context: cfg.Context, Effort: cfg.Effort, Workspace: cfg.Workspace.Root, Now: cfg.Now,
		DeliverToLead: r.Deliver, Backends: cfg.Backends, NameAgent: r.mgr.Name, History: history,
		Memory: cfg.Memory, Owners: r.owners, Hooks: hooked, Shells: r.shells,
		Nest: func(ctx context.Context, id string, set *tools.Set, wake chan struct{}) (func(backend.Session), func()) {
			a := r.mgr.Adopt(ctx, id, set, wake)
			return a.Attach, a.Release
		},
	})
	leadTools := core.Without()
	r.shells.Follow(event.LeadID, leadTools) // its shell tools once it starts a shell
	// The other orchestration tools join as they become useful.
	subagent.Offer(r.mgr, leadTools)
	// Without teams enabled the team tools are held, not offered: they
	// cost no request a byte, and a model that calls one anyway (a
	// scripted one, one that knows the names) still forms a team.
	for _, t := range team.LeadTools(r.team) {
		if cfg.Teams {
			leadTools.Add(t)
		} else {
			leadTools.Hold(t)
		}
	}
	if cfg.Teams {
		// It stops a teammate outright (shutdown_request asks).
		leadTools.Offer("cancel_task") // held by subagent.Offer
	}
	r.leadTools = leadTools
	cfg.MCP.AddTo(core, leadTools)
	if r.resumed != nil && r.offerResumable(r.resumed, cfg.Resume.Subagents) {
		leadTools.Add(subagent.NewResumeTask(r.mgr))
	}
	var leadOut event.Sink = r.bus
	if cfg.NewLead != nil {
		leadOut = leadSink{r} // the CLI's own sub-agents are registered as it announces them
	}
	lead, err := spawn.New(spawn.Config{Provider: cfg.Provider, Model: cfg.Model, Gate: cfg.Gate, MaxTurns: cfg.MaxTurns, Context: cfg.Context, Effort: cfg.Effort,
		Workspace: cfg.Workspace.Root, Now: cfg.Now, History: history, Hooks: hooked}).OpenLead(cfg.NewLead, leadTools, spawn.Spec{
		SessionID: cfg.SessionID, AgentID: event.LeadID, Name: event.LeadID, Sink: leadOut,
		System: leadPrompt(cfg), History: leadHistory})
	if err != nil {
		r.mgr.Close()
		r.team.Close()
		cfg.MCP.Close()
		return nil, err
	}
	r.lead = lead
	if r.resumed != nil {
		r.restore(r.resumed)
	}
	r.own = r.bus.SubscribeWith(func(e event.Event) {
		r.endGrants(e)
		switch e.Type {
		case event.SubagentComplete, event.TeammateStatus, event.TeamMessage:
			r.signal()
		case event.ToolComplete:
			if cfg.Remote != nil {
				// A tool may have changed files: tasks sent from now on
				// carry a new snapshot, taken at once when the lead's own
				// next model request follows.
				cfg.Remote.Changed(e.AgentID == event.LeadID)
			}
		}
	}, bus.Options{Name: "runtime"})
	return r, nil
}

// CoreTools is the tool set every agent may draw from: the file and shell
// tools, and todo_write, whose one instance keeps a plan per agent.
func CoreTools(ws tools.Workspace) *tools.Set {
	set := tools.Core(ws)
	set.Add(tools.NewTodoWrite())
	return set
}

// NewSessionID makes a run's session id: its start time, then 32 random
// bits, so that runs started in the same second (two in one directory)
// never share one.
func NewSessionID(now time.Time) string {
	return fmt.Sprintf("atomic-%s-%08x", now.UTC().Format("20060102T150405"), rand.Uint32())
}

// Bus is the run's event bus: subscribe to see every event.
func (r *Runtime) Bus() *bus.Bus { return r.bus }

// JournalSubscription is the session store's subscription to the bus (nil
// without a journal): output that must not get ahead of the store
// (stream-json) subscribes After it.
func (r *Runtime) JournalSubscription() *bus.Subscription { return r.journal }

// Manager is the sub-agent manager.
func (r *Runtime) Manager() *subagent.Manager { return r.mgr }

// Team is the lead's team manager (teammates, messages, force-stop).
func (r *Runtime) Team() *team.Manager { return r.team }

// Lead is the lead session.
func (r *Runtime) Lead() backend.Session { return r.lead }

// SessionID is the run's session id.
func (r *Runtime) SessionID() string { return r.cfg.SessionID }

// Emit sends an event from the lead (used by the UI for interrupts etc.).
func (r *Runtime) Emit(typ event.Type, data any) {
	r.bus.Emit(event.Event{Type: typ, Time: r.cfg.Now(), SessionID: r.cfg.SessionID, AgentID: event.LeadID, Data: data})
}

// Completed delivers an Outcome each time the run settles and emits complete.
func (r *Runtime) Completed() <-chan Outcome { return r.completed }

// input is what the driver loop takes in order: a user prompt, or a reset
// (/clear) to carry out once the turn it cancelled has ended.
type input struct {
	prompt string
	images []provider.Image
	reset  *string // the reset's reason
	// compact is a /compact to carry out between turns.
	compact *compactInput
	// rewind is a /rewind to carry out between turns.
	rewind *rewindInput
	// gen is the interrupt generation the prompt was submitted in: an
	// interrupt that comes before its turn starts cancels it too.
	gen uint64
	// turn is told how the prompt's turn ended (nil: nobody asks).
	turn *Turn
}

// Submit queues a user prompt for the lead.
func (r *Runtime) Submit(prompt string) { r.SubmitImages(prompt, nil) }

// SubmitImages queues a user prompt whose images follow its text in the
// lead's user message. The journal keeps the text with a note of how
// many images came with it ("[1 image]"); the images themselves are kept
// in the lead's history. A lead that takes no images (TakesImages false)
// fails the turn naming why.
func (r *Runtime) SubmitImages(prompt string, images []provider.Image) {
	r.submit(input{prompt: prompt, images: images}, nil)
}

// submit queues in, a prompt, unless stopped is closed first (the run's
// driver loop has ended: nobody would take it).
func (r *Runtime) submit(in input, stopped <-chan struct{}) {
	prompt, images := in.prompt, in.images
	if r.cfg.Remote != nil {
		r.cfg.Remote.Changed(true) // the user may have edited files meanwhile
	}
	if r.cfg.Journal != nil {
		// The store gets the prompt after every event emitted before it.
		_ = r.journal.Flush(context.Background())
		r.cfg.Journal.Prompt(withImageNote(prompt, len(images)))
	}
	r.mu.Lock()
	r.dirty = true
	in.gen = r.gen
	r.mu.Unlock()
	select {
	case r.inputs <- in:
	case <-stopped:
		in.turn.finish(droppedTurn, false)
	}
}

// TakesImages reports whether the lead takes images in a prompt: the
// native loop over a provider whose API carries them.
func (r *Runtime) TakesImages() bool {
	_, ok := r.lead.(backend.ImageRunner)
	return ok && r.cfg.Provider != nil && provider.TakesImages(r.cfg.Provider.Name())
}

// Busy reports whether the lead is in a turn.
func (r *Runtime) Busy() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.busy
}

// Deliver queues a message for the lead and wakes it if idle (teammates'
// messages to the lead arrive this way).
func (r *Runtime) Deliver(text string) {
	r.lead.Deliver(text)
	r.signal()
}

func (r *Runtime) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// onTaskFinish queues a background task's result for the lead; the wake-up
// follows its subagent.complete. The notification is decided when the
// lead's next request is built: if the lead read the result meanwhile
// (wait_for_task, check_task) it is dropped, so each result reaches the lead
// exactly once. A cancelled task wakes nobody: the user (interrupt) or the
// lead (cancel_task) cancelled it and knows.
func (r *Runtime) onTaskFinish(t *subagent.Task, out subagent.Outcome) {
	if !t.Spec.Background || out.Cancelled {
		return
	}
	body := "completed.\nResult:\n" + out.Result
	if !out.Success {
		body = "failed.\nError: " + out.Error
	}
	text := fmt.Sprintf("<task-notification>\nBackground task %s (%s: %s) %s\n</task-notification>",
		t.ID, t.Type.Name, t.Spec.Description, body)
	r.notifyLead(t.ID, text, t.Claim, t.Claimed, t.OnClaim)
}

// Serve drives the lead until ctx ends. It returns after closing every
// sub-agent.
func (r *Runtime) Serve(ctx context.Context) error {
	defer r.own.Close()
	if r.resumed != nil {
		r.interruptStale(r.resumed)
		r.resumeHeld(r.resumed.held)
		r.resumed = nil
	}
	for {
		select {
		case in := <-r.inputs:
			if in.reset != nil {
				r.reset(*in.reset)
				break
			}
			if in.compact != nil {
				r.compact(ctx, in.compact)
				break
			}
			if in.rewind != nil {
				r.rewind(in.rewind)
				break
			}
			r.turn(ctx, in.prompt, in.images, &in.gen, in.turn)
		case <-r.wake:
			if r.wakes() {
				r.turn(ctx, "", nil, nil, nil)
			}
		case <-ctx.Done():
			r.mgr.Close()
			r.team.Close()
			r.closeShells()
			return ctx.Err()
		}
		r.settle()
	}
}

// wakes reports whether the lead has something to do without a prompt
// and may do it now (see Config.HoldWakes).
func (r *Runtime) wakes() bool {
	return r.lead.Pending() && !(r.cfg.HoldWakes && r.cfg.NewLead == nil)
}

// turn runs the lead once. A user prompt's turn (gen set) does not run when
// an interrupt came after the prompt was submitted: the check and the
// cancel func share the lock, so no interrupt can fall between them. tn,
// when set, is told how the turn ended, after its turn.end.
func (r *Runtime) turn(ctx context.Context, prompt string, images []provider.Image, gen *uint64, tn *Turn) {
	tctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	if gen != nil && *gen != r.gen {
		r.mu.Unlock()
		cancel()
		tn.finish(droppedTurn, false)
		return
	}
	r.turnCancel, r.busy, r.dirty = cancel, true, true
	r.mu.Unlock()
	if tn != nil && tn.start != nil {
		tn.start()
	}
	if gen != nil && prompt != "" {
		r.begin(prompt)
	}
	r.awaitMCP(tctx)
	res, err := r.runLead(tctx, prompt, images)
	interrupted := err != nil && tctx.Err() != nil
	cancel()
	r.revoke(event.LeadID) // a skill's allowed-tools end with the turn
	r.mu.Lock()
	r.turnCancel, r.busy = nil, false
	if res != nil {
		r.numTurns += res.Turns
		if res.Text != "" {
			r.lastText = res.Text
		}
	}
	if err != nil && !interrupted {
		r.leadErr = err
	}
	numTurns := r.numTurns
	r.mu.Unlock()
	end := event.TurnEndData{NumTurns: numTurns, Woken: gen == nil}
	if res != nil {
		end.StopReason = res.StopReason
	}
	if interrupted {
		end.StopReason = event.StopInterrupted
	} else if err != nil {
		end.StopReason, end.Error = event.StopError, err.Error()
	}
	r.Emit(event.TurnEnd, end)
	tn.finish(end, true)
	if err != nil && !interrupted && r.cfg.CancelOnLeadError {
		r.mgr.CancelAll()
		r.team.Interrupt()
	}
}

// runLead runs the lead's turn, with images when the prompt has some.
func (r *Runtime) runLead(ctx context.Context, prompt string, images []provider.Image) (*backend.Result, error) {
	if len(images) == 0 {
		return r.lead.Run(ctx, prompt)
	}
	if !r.TakesImages() {
		return nil, fmt.Errorf("the prompt has %d image(s), but the lead (%s) takes text only", len(images), r.leadKind())
	}
	return r.lead.(backend.ImageRunner).RunImages(ctx, prompt, images)
}

// leadKind names what runs the lead, for errors.
func (r *Runtime) leadKind() string {
	if _, ok := r.lead.(backend.ImageRunner); ok && r.cfg.Provider != nil {
		return "provider " + r.cfg.Provider.Name()
	}
	return "an external agent CLI"
}

// awaitMCP holds the lead's first request until the MCP servers are up or
// the start-up budget (counted from their start) has passed; a server
// later than that joins from a later request.
func (r *Runtime) awaitMCP(ctx context.Context) {
	r.mcpReady.Do(func() {
		budget := r.cfg.MCPStartupBudget
		if budget <= 0 {
			budget = mcp.DefaultStartupBudget
		}
		r.cfg.MCP.Ready(ctx, budget)
	})
}

// MCP reports each MCP server's state (/mcp).
func (r *Runtime) MCP() []mcp.Status { return r.cfg.MCP.Statuses() }

// settle emits complete when nothing is left to do, usage.update otherwise.
func (r *Runtime) settle() {
	r.mu.Lock()
	busy, dirty := r.busy || r.resets > 0, r.dirty
	r.mu.Unlock()
	if busy || len(r.inputs) > 0 || !dirty {
		return
	}
	if n := len(r.owners.Unsettled(r.bus.Holds)); n > 0 || r.wakes() {
		// The bus fills in the lead's usage and the run's total.
		r.Emit(event.UsageUpdate, event.UsageUpdateData{Active: n, Delta: true})
		if r.wakes() {
			r.signal()
		}
		return
	}
	r.mu.Lock()
	out := Outcome{Result: r.lastText, Err: r.leadErr, NumTurns: r.numTurns, Usage: r.bus.TotalUsage()}
	r.dirty, r.leadErr = false, nil
	r.mu.Unlock()
	data := event.CompleteData{Result: out.Result, NumTurns: out.NumTurns, Usage: out.Usage}
	if out.Err != nil {
		data.IsError, data.Error = true, out.Err.Error()
		data.Interrupted = errors.Is(out.Err, ErrInterrupted)
	}
	r.Emit(event.Complete, data)
	select {
	case r.completed <- out:
	default:
	}
}

// ErrInterrupted is the Outcome error of an interrupted run.
var ErrInterrupted = errors.New("interrupted")

// Interrupt stops the lead's turn, every sub-agent and every teammate
// (Esc, Ctrl+C, SIGINT), marking active ones interrupted.
func (r *Runtime) Interrupt(reason string) {
	_ = r.cancelAll(r.interrupt(reason))
	r.signal()
}

// InterruptTurn stops the lead's turn and the sync sub-agents it waits on,
// and keeps background sub-agents and teammates running (the chat's first
// Esc, as Claude Code keeps background work). A lead in an external CLI
// is interrupted whole: what it started in the background is its own.
func (r *Runtime) InterruptTurn(reason string) {
	if !r.KeepsBackground() {
		r.Interrupt(reason)
		return
	}
	r.interruptWith(event.InterruptData{Reason: reason, KeepBackground: true})
	r.signal()
}

// KeepsBackground reports whether InterruptTurn keeps background work
// running: the lead is Atomic's own loop.
func (r *Runtime) KeepsBackground() bool {
	_, ok := r.lead.(backend.ImageRunner)
	return ok && r.cfg.Provider != nil
}

// interrupt marks the run interrupted: prompts queued before it are
// dropped, the outcome says why, the interrupt event ends every active
// agent's record, and the lead's turn is cancelled. It returns the active
// sub-agents of the lead's own backend, which cancelAll stops.
func (r *Runtime) interrupt(reason string) []string {
	return r.interruptWith(event.InterruptData{Reason: reason})
}

func (r *Runtime) interruptWith(d event.InterruptData) []string {
	reason := d.Reason
	r.mu.Lock()
	cancel := r.turnCancel
	r.gen++
	if r.dirty && r.leadErr == nil {
		r.leadErr = fmt.Errorf("%w: %s", ErrInterrupted, reason)
	}
	r.mu.Unlock()
	active := r.leadAgents()
	r.Emit(event.Interrupt, d)
	if cancel != nil {
		cancel()
	}
	return active
}

// cancelAll cancels every sub-agent and teammate, and the lead backend's
// sub-agents leadAgents; it reports the cancels the lead's backend could
// not deliver.
func (r *Runtime) cancelAll(leadAgents []string) error {
	r.mgr.CancelAll()
	r.team.Interrupt()
	r.stopShells("interrupted")
	return r.cancelLeadAgents(leadAgents)
}

// leadAgents lists the active sub-agents the lead's own backend (an
// external CLI) runs.
func (r *Runtime) leadAgents() []string {
	return r.owners.Select(func(id string, o bus.Owner) bool {
		return o.Kind == bus.OwnerCLI && o.By == event.LeadID && !r.bus.Ended(id)
	})
}

// cancelLeadAgents stops the lead backend's sub-agents ids: an interrupt
// also ends the background work a CLI lead started, which its own
// interrupt leaves running; together with an interrupt of the lead where
// the backend must (backend.AgentsInterrupter), so that their ends start
// no model request. Otherwise each goes to its owner: a backend that cannot
// stop one alone has stopped them all with its interrupt. It reports the
// cancels that could not be delivered.
func (r *Runtime) cancelLeadAgents(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if in, ok := r.lead.(backend.AgentsInterrupter); ok {
		in.InterruptAgents(ids)
		return nil
	}
	var errs []error
	for _, id := range ids {
		if err := r.owners.Cancel(id); err != nil {
			errs = append(errs, err) // it names the agent and its owner
		}
	}
	return errors.Join(errs...)
}

// CancelTask stops one agent of the tree (/tasks) through its owner: the
// sub-agent manager, the team manager, or the external CLI session that
// started it, which says so when it cannot stop one alone.
func (r *Runtime) CancelTask(id string) error { return r.owners.Cancel(id) }

// Reset clears the conversation (/clear): it cancels at once the lead's
// turn (a turn woken by a background task too), every sub-agent and every
// teammate; the driver loop clears the history once that turn has ended, in
// order with the prompts submitted around it, and then emits reset. So the
// cancelled turn never writes into the new conversation, and everything it
// emitted comes before the reset event.
func (r *Runtime) Reset(reason string) {
	r.mu.Lock()
	cancel := r.turnCancel
	r.resets++ // no complete until it is carried out: the work it cancels may end first
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	r.mgr.CancelAll()
	r.team.Reset()
	r.stopShells("reset")
	r.inputs <- input{reset: &reason}
}

// reset carries out a Reset between turns.
func (r *Runtime) reset(reason string) {
	r.lead.Reset()
	r.mu.Lock()
	r.lastText = ""
	r.resets--
	r.mu.Unlock()
	r.Emit(event.Reset, event.ResetData{Reason: reason})
}

// SwitchModel changes the lead's model; like Reset it cancels all
// background work first (a new model does not inherit half-done work).
func (r *Runtime) SwitchModel(model string) {
	r.Emit(event.Reset, event.ResetData{Reason: "model switched to " + model})
	r.mgr.CancelAll()
	r.team.Interrupt()
	r.stopShells("model switched")
	r.lead.SetModel(model)
	r.mgr.SetModel(model)
	r.team.SetModel(model)
}

// Model is the lead's current model.
func (r *Runtime) Model() string { return r.lead.Model() }

// Provider is the run's model provider.
func (r *Runtime) Provider() provider.Provider { return r.cfg.Provider }

// Close cancels everything and waits for sub-agents, teammates, the
// lead's session (an external CLI's process) and the MCP servers to end,
// then closes the bus: it returns once every subscriber has handled every
// event, so the session store, closed after it, keeps the last ones.
func (r *Runtime) Close() {
	r.mgr.Close()
	r.team.Close()
	r.closeShells()
	_ = r.lead.Close()
	r.cfg.MCP.Close()
	// Every subscriber (the store first) has every event emitted so far
	// before Close returns, and gets none after.
	r.bus.Close()
}

// sandboxMode names the sandbox of ws's commands for subagent.start: ""
// when they run unconfined.
func sandboxMode(ws tools.Workspace) string {
	if m := ws.Sandbox.Mode(); m != sandbox.Off {
		return string(m)
	}
	return ""
}
