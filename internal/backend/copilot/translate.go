package copilot

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	sdk "github.com/github/copilot-sdk/go"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
)

// maxEarly bounds the events kept for an agentId not yet bound (a
// sub-agent's events that came before its subagent.started).
const maxEarly = 512

// Translator turns the Copilot session's events into §1 events: events
// without an agentId are the lead's (cfg.AgentID), a sub-agent's carry the
// agentId its subagent.started bound to the task call that spawned it. It
// holds no process: the Session feeds it, and the replay tests feed it
// captured streams. It also keeps the lead's turns: each ends with the
// lead's assistant.idle. Safe for concurrent use; events are emitted in the
// order they arrive.
type Translator struct {
	cfg backend.Config

	mu    sync.Mutex
	lead  *agent
	kids  *backend.Children[sub] // by task call id and agentId; every tool call
	early map[string][]sdk.SessionEvent

	// turns are the lead's: each ends with the lead's assistant.idle.
	turns *backend.TurnTracker[TurnEnd]
	text  string // the lead's last message in the turn under way
	// leadUsage is the lead's tokens so far, for Run's result.
	leadUsage event.Usage
}

// agent is the lead or one sub-agent; the lead's record is kept out of
// kids.
type agent = backend.Child[sub]

// sub is what the translator keeps of an agent besides its record.
type sub struct {
	par          *agent // the agent whose task call spawned it (nil: the lead)
	copilotID    string // the agentId of its events
	desc, prompt string
	model        string
	background   bool
	started      bool // bound to its agentId: its session started
	current      string
	last         string // its last message text
}

// depth is how many agents spawned a in turn (the lead's sub-agent: 1).
func depth(a *agent) int {
	n := 0
	for p := a.X.par; p != nil; p = p.X.par {
		n++
	}
	return n
}

// TurnEnd is the end of one of the lead's turns.
type TurnEnd struct {
	// Text is the lead's last message in the turn.
	Text string
	// Aborted is set when session.abort cut the turn off.
	Aborted bool
	// Error is the session.error the turn reported, if any.
	Error string
}

// NewTranslator returns a translator emitting to cfg.Sink.
func NewTranslator(cfg backend.Config) *Translator {
	cfg = cfg.WithDefaults()
	return &Translator{
		cfg:  cfg,
		lead: &agent{ID: cfg.AgentID, SessionID: cfg.SessionID, Parent: cfg.ParentID, X: sub{started: true}},
		kids: backend.NewChildren[sub](cfg), early: map[string][]sdk.SessionEvent{}, turns: backend.NewTurnTracker[TurnEnd](),
	}
}

// Begin marks a lead turn Run starts (session.send follows): it is under
// way from now on.
func (t *Translator) Begin() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.turns.Send()
	t.turns.Began("")
	t.text = ""
}

// Turns are the lead's turns.
func (t *Translator) Turns() *backend.TurnTracker[TurnEnd] { return t.turns }

// began starts a lead turn nobody sent, unless one is under way: the CLI
// woke its lead.
func (t *Translator) began() {
	if t.turns.Began("") {
		t.text = ""
	}
}

// LeadUsage is the lead's token usage so far.
func (t *Translator) LeadUsage() event.Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.leadUsage
}

// Active lists the ids of the sub-agents under way, with their Copilot
// agentIds ("" while not bound yet).
func (t *Translator) Active() map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]string{}
	for _, c := range t.kids.Open() {
		out[c.ID] = c.X.copilotID
	}
	return out
}

// End ends sub-agent id as interrupted (cancelled through the CLI, which
// reports no end of its own in time). It reports whether id was known.
func (t *Translator) End(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.kids.Get(id)
	if c != nil {
		t.interrupt(c)
	}
	return c != nil
}

// EndAll ends every sub-agent still under way as interrupted and the lead's
// turn, if one is open: the session is closing or was interrupted, and
// nothing more will come for them.
func (t *Translator) EndAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	kids := t.kids.Open()
	// The deepest first: a sub-agent's own sub-agent ends (and with it its
	// task call) before the sub-agent that spawned it.
	slices.SortFunc(kids, func(a, b *agent) int {
		if d := depth(b) - depth(a); d != 0 {
			return d
		}
		return strings.Compare(a.SessionID, b.SessionID)
	})
	for _, c := range kids {
		t.interrupt(c)
	}
	t.closeOpen(t.lead)
	t.turns.Abort(TurnEnd{Text: t.text, Aborted: true})
}

// interrupt ends c as interrupted: a bound sub-agent with its
// subagent.complete, a spawn never bound with its task call's end.
func (t *Translator) interrupt(c *agent) {
	if c.Done {
		return
	}
	if c.X.started {
		t.finish(c, false, true, "")
	} else {
		c.Done = true
	}
	// Its task call ends with it: Copilot reports no end of a call it
	// stopped.
	if _, open := t.kids.EndCall(c.X.par.ID, c.Call); open {
		t.emit(c.X.par, event.ToolComplete, c.Call, event.ToolCompleteData{Name: "task", Cancelled: true, Error: "interrupted"})
	}
}

// closeOpen ends a's tool calls still open, before a's own end: Copilot
// reports no end of a command still running (a bash call) in an agent it
// stopped, and every call must close before its agent ends. A later
// report of the call is dropped.
func (t *Translator) closeOpen(a *agent) {
	for _, k := range t.kids.CloseCalls(a.ID) {
		t.emit(a, event.ToolComplete, k.ID,
			event.ToolCompleteData{Name: k.Name, Cancelled: true, Error: "interrupted: the agent ended before the call returned"})
	}
}

// Handle translates one session event.
func (t *Translator) Handle(ev sdk.SessionEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.handle(ev)
}

func (t *Translator) handle(ev sdk.SessionEvent) {
	if ev.AgentID != nil && *ev.AgentID != "" {
		t.subagentEvent(*ev.AgentID, ev)
		return
	}
	a := t.lead
	switch d := ev.Data.(type) {
	case *sdk.AssistantTurnStartData:
		t.began()
	case *sdk.SystemNotificationData:
		if _, idle := d.Kind.(*sdk.SystemNotificationAgentIdle); idle {
			t.began()
		}
	case *sdk.AssistantMessageDeltaData:
		t.delta(a, d.DeltaContent)
	case *sdk.AssistantMessageData:
		t.message(a, d.Content)
		if d.Content != "" {
			t.text = d.Content
		}
	case *sdk.ToolExecutionStartData:
		if d.ToolName == "task" {
			t.spawn(a, d)
			return
		}
		t.toolStart(a, d.ToolCallID, d.ToolName, d.Arguments)
	case *sdk.ToolExecutionCompleteData:
		if c := t.spawned(d.ToolCallID); c != nil {
			t.taskComplete(c, d)
			return
		}
		t.toolComplete(a, d)
	case *sdk.AssistantUsageData:
		t.tokens(a, d)
	case *sdk.SessionErrorData:
		t.emit(a, event.Error, "", event.ErrorData{Message: d.Message})
		t.turns.Ended("", TurnEnd{Text: t.text, Error: d.Message})
	case *sdk.AssistantIdleData:
		t.turns.Ended("", TurnEnd{Text: t.text, Aborted: d.Aborted != nil && *d.Aborted})
	case *sdk.SessionIdleData: // an idle without assistant.idle
		t.turns.Ended("", TurnEnd{Text: t.text, Aborted: d.Aborted != nil && *d.Aborted})
	case *sdk.SubagentCompletedData: // a sub-agent's end may come without its agentId
		if c := t.spawned(d.ToolCallID); c != nil {
			t.finish(c, d.Cancelled == nil || !*d.Cancelled, d.Cancelled != nil && *d.Cancelled, "")
		}
	case *sdk.SubagentFailedData:
		if c := t.spawned(d.ToolCallID); c != nil {
			t.finish(c, false, false, firstNonEmpty(d.Error, "sub-agent failed"))
		}
	}
}

// spawned is the sub-agent task call call spawns; nil when none does.
func (t *Translator) spawned(call string) *agent {
	if c := t.kids.Of(call); c != nil && c.Call == call {
		return c
	}
	return nil
}

// subagentEvent translates an event a sub-agent's agentId names.
func (t *Translator) subagentEvent(id string, ev sdk.SessionEvent) {
	if d, ok := ev.Data.(*sdk.SubagentStartedData); ok {
		t.bind(id, d)
		return
	}
	c := t.kids.Of(id)
	if c == nil || c.X.copilotID != id {
		if q := t.early[id]; len(q) < maxEarly {
			t.early[id] = append(q, ev)
		}
		return
	}
	switch d := ev.Data.(type) {
	case *sdk.AssistantMessageDeltaData:
		t.delta(c, d.DeltaContent)
	case *sdk.AssistantMessageData:
		t.message(c, d.Content)
		if d.Content != "" {
			c.X.last = d.Content
		}
	case *sdk.ToolExecutionStartData:
		if d.ToolName == "task" { // a sub-agent's own sub-agent
			t.spawn(c, d)
			return
		}
		t.toolStart(c, d.ToolCallID, d.ToolName, d.Arguments)
	case *sdk.ToolExecutionCompleteData:
		if k := t.spawned(d.ToolCallID); k != nil && k.X.par == c {
			t.taskComplete(k, d)
			return
		}
		t.toolComplete(c, d)
	case *sdk.AssistantUsageData:
		t.tokens(c, d)
	case *sdk.SubagentCompletedData:
		cancelled := d.Cancelled != nil && *d.Cancelled
		t.finish(c, !cancelled, cancelled, "")
	case *sdk.SubagentFailedData:
		t.finish(c, false, false, firstNonEmpty(d.Error, "sub-agent failed"))
	case *sdk.SessionErrorData:
		t.emit(c, event.Error, "", event.ErrorData{Message: d.Message})
	}
}

// spawn reserves the sub-agent a task call of parent's starts and
// announces the call with its id and session: from the first event that
// names it, the sub-agent has its own id and its parent.
func (t *Translator) spawn(parent *agent, d *sdk.ToolExecutionStartData) {
	if t.spawned(d.ToolCallID) != nil {
		return
	}
	// The CLI's task tool takes name, description, prompt, agent_type,
	// model and mode.
	var in event.TaskInput
	if b, err := json.Marshal(d.Arguments); err == nil {
		in, _ = event.ParseTaskInput(b) // a field of another type leaves the rest
	}
	t.newChild(parent, d.ToolCallID, in)
}

func (t *Translator) newChild(parent *agent, call string, in event.TaskInput) *agent {
	c := t.kids.New(in.Type(), parent.ID, call)
	desc := firstNonEmpty(in.Description, in.Name, summary(in.Prompt))
	c.X = sub{par: parent, desc: desc, prompt: in.Prompt, model: in.Model, background: in.Background}
	input := event.TaskCall(event.TaskInput{Description: desc, Prompt: in.Prompt, SubagentType: c.Type,
		Mode: event.TaskSync, Background: in.Background})
	t.kids.StartCall(parent.ID, call, "task")
	parent.X.current = "task"
	t.emit(parent, event.ToolStart, call, event.ToolStartData{Name: "task", Input: input, SubagentID: c.ID, SubagentSessionID: c.SessionID})
	t.update(parent)
	return c
}

// bind gives the task call's sub-agent its agentId: its session starts,
// and what it reported before is replayed.
func (t *Translator) bind(id string, d *sdk.SubagentStartedData) {
	c := t.spawned(d.ToolCallID)
	if c == nil { // a task call not seen: the lead's, as nothing else names it
		c = t.newChild(t.lead, d.ToolCallID, event.TaskInput{Name: d.AgentDisplayName, Description: d.AgentDescription, SubagentType: d.AgentName})
	}
	if c.X.started || c.Done {
		return
	}
	c.X.copilotID, c.X.started = id, true
	if d.Model != nil && *d.Model != "" {
		c.X.model = *d.Model
	}
	t.kids.Bind(id, c.ID)
	t.emit(c, event.SubagentStart, c.Call, event.SubagentStartData{AgentType: c.Type, Description: c.X.desc,
		Prompt: c.X.prompt, Background: c.X.background, Model: c.X.model, Backend: backend.Copilot})
	t.emit(c, event.SessionStart, "", event.SessionStartData{Model: c.X.model, Provider: backend.Copilot, Name: c.Type})
	q := t.early[id]
	delete(t.early, id)
	for _, ev := range q {
		t.subagentEvent(id, ev)
	}
}

// taskComplete ends the task call that spawned c (its parent's): for a
// sync sub-agent its result, for a background one the spawn
// acknowledgement.
func (t *Translator) taskComplete(c *agent, d *sdk.ToolExecutionCompleteData) {
	if _, open := t.kids.EndCall(c.X.par.ID, c.Call); !open {
		return // a task call completes once
	}
	out := toolEnd(d)
	out.Name = "task"
	if !c.X.started && !c.Done { // the spawn failed: no sub-agent will report
		c.Done = true
	}
	t.emit(c.X.par, event.ToolComplete, c.Call, out)
}

// finish reports a sub-agent's end once. A background sub-agent's end
// while the lead is idle wakes the lead: Copilot starts a lead turn with
// its result, so the session is pending before the end is told.
func (t *Translator) finish(c *agent, ok, cancelled bool, errText string) {
	if c.Done || !c.X.started {
		return
	}
	c.Done, c.X.current = true, ""
	t.closeOpen(c)
	if c.X.background && !cancelled && t.turns.Woke() {
		t.began() // under way from now on, as Copilot starts it
	}
	d := event.SubagentCompleteData{Success: ok, Result: c.X.last}
	switch {
	case cancelled:
		d.Cancelled, d.Error = true, "interrupted"
	case !ok:
		d.Error = errText
	}
	t.emit(c, event.SubagentComplete, c.Call, d)
}

func (t *Translator) delta(a *agent, text string) {
	if text != "" {
		t.emit(a, event.MessageDelta, "", event.MessageDeltaData{Text: text})
	}
}

func (t *Translator) message(a *agent, text string) {
	if text != "" {
		t.emit(a, event.MessageComplete, "", event.MessageCompleteData{Text: text})
	}
}

func (t *Translator) toolStart(a *agent, id, name string, args any) {
	name = ourToolName(name)
	if !t.kids.StartCall(a.ID, id, name) {
		return
	}
	in, _ := json.Marshal(args)
	a.X.current = name
	t.emit(a, event.ToolStart, id, event.ToolStartData{Name: name, Input: in})
	t.update(a)
}

func (t *Translator) toolComplete(a *agent, d *sdk.ToolExecutionCompleteData) {
	if open, ended := t.kids.CallState(a.ID, d.ToolCallID); !open && !ended {
		t.toolStart(a, d.ToolCallID, "tool", nil) // a call reported only when it ended
	}
	name, open := t.kids.EndCall(a.ID, d.ToolCallID)
	if !open {
		return
	}
	out := toolEnd(d)
	out.Name = name
	t.emit(a, event.ToolComplete, d.ToolCallID, out)
	t.update(a)
}

// toolEnd is a tool call's end as §1 tells it (Name left for the
// caller).
func toolEnd(d *sdk.ToolExecutionCompleteData) event.ToolCompleteData {
	out := event.ToolCompleteData{Success: d.Success}
	if d.Result != nil {
		out.Result = d.Result.Content
	}
	if !d.Success {
		out.Error = "tool call failed"
		if d.Error != nil && d.Error.Message != "" {
			out.Error = d.Error.Message
		}
	}
	return out
}

// update reports a sub-agent's progress (the lead has none); the reducer
// fills in its counts.
func (t *Translator) update(a *agent) {
	if a == t.lead || a.Done || !a.X.started {
		return
	}
	t.emit(a, event.SubagentUpdate, a.Call, event.SubagentUpdateData{CurrentTool: a.X.current})
}

// tokens reports one model call's usage of a's (a delta the reducer adds).
func (t *Translator) tokens(a *agent, d *sdk.AssistantUsageData) {
	in, cached := deref(d.InputTokens), deref(d.CacheReadTokens)
	u := event.Usage{
		InputTokens:         max(0, in-cached),
		CacheReadTokens:     cached,
		CacheCreationTokens: deref(d.CacheWriteTokens),
		OutputTokens:        deref(d.OutputTokens),
		CostUSD:             deref(d.Cost),
	}
	if a == t.lead {
		t.leadUsage = t.leadUsage.Add(u)
	}
	t.emit(a, event.UsageUpdate, "", event.UsageUpdateData{Usage: u, Delta: true})
	t.update(a)
}

func (t *Translator) emit(a *agent, typ event.Type, call string, data any) {
	t.cfg.Sink.Emit(event.Event{Type: typ, Time: t.cfg.Now(), SessionID: a.SessionID, AgentID: a.ID,
		ParentAgentID: a.Parent, ToolCallID: call, Data: t.kids.RewriteData(data)})
}

// ourToolName maps the CLI's tools that have an Atomic counterpart to its
// name, so events and the TUI speak of them as of native calls (a switch:
// a package-level map is built at init in every process).
func ourToolName(name string) string {
	switch name {
	case "view":
		return "read"
	case "create":
		return "write"
	case "str_replace", "edit":
		return "edit"
	}
	return name
}

// summary is a task's description from its prompt: its first line, cut.
func summary(prompt string) string {
	s, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// Fail ends the lead's turn Run began with an error: the CLI never took
// its message.
func (t *Translator) Fail(msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.turns.Ended("", TurnEnd{Text: t.text, Error: msg})
}
