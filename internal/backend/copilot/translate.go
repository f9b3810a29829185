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

	mu      sync.Mutex
	lead    *agent
	byCall  map[string]*agent // task call id → the sub-agent it spawns
	byAgent map[string]*agent // Copilot agentId → sub-agent
	early   map[string][]sdk.SessionEvent
	kids    *backend.Children[struct{}]
	open    map[string]*call // "agent/call" → tool call started

	// turns are the lead's: each ends with the lead's assistant.idle.
	turns *backend.TurnTracker[TurnEnd]
	text  string // the lead's last message in the turn under way
}

// agent is the lead or one sub-agent.
type agent struct {
	id, session, parent string
	par                 *agent // the agent whose task call spawned it (nil: the lead)
	copilotID           string // the agentId of its events
	call                string // the task call that spawned it
	kind, desc, prompt  string
	model               string
	background          bool
	started, done       bool
	toolUses            int
	current             string
	usage               event.Usage
	last                string // its last message text
}

// depth is how many agents spawned a in turn (the lead's sub-agent: 1).
func (a *agent) depth() int {
	n := 0
	for p := a.par; p != nil; p = p.par {
		n++
	}
	return n
}

// call is one tool call: its name, and whether it ended.
type call struct {
	name  string
	ended bool
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
		cfg:    cfg,
		lead:   &agent{id: cfg.AgentID, session: cfg.SessionID, parent: cfg.ParentID, started: true},
		byCall: map[string]*agent{}, byAgent: map[string]*agent{}, early: map[string][]sdk.SessionEvent{},
		kids: backend.NewChildren[struct{}](cfg), open: map[string]*call{}, turns: backend.NewTurnTracker[TurnEnd](),
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
	return t.lead.usage
}

// LeadToolUses counts the lead's tool calls so far.
func (t *Translator) LeadToolUses() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lead.toolUses
}

// Active lists the ids of the sub-agents under way, with their Copilot
// agentIds ("" while not bound yet).
func (t *Translator) Active() map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]string{}
	for _, c := range t.byCall {
		if !c.done {
			out[c.id] = c.copilotID
		}
	}
	return out
}

// End ends sub-agent id as interrupted (cancelled through the CLI, which
// reports no end of its own in time). It reports whether id was known.
func (t *Translator) End(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.byCall {
		if c.id == id {
			t.interrupt(c)
			return true
		}
	}
	return false
}

// EndAll ends every sub-agent still under way as interrupted and the lead's
// turn, if one is open: the session is closing or was interrupted, and
// nothing more will come for them.
func (t *Translator) EndAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	kids := make([]*agent, 0, len(t.byCall))
	for _, c := range t.byCall {
		kids = append(kids, c)
	}
	// The deepest first: a sub-agent's own sub-agent ends (and with it its
	// task call) before the sub-agent that spawned it.
	slices.SortFunc(kids, func(a, b *agent) int {
		if d := b.depth() - a.depth(); d != 0 {
			return d
		}
		return strings.Compare(a.session, b.session)
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
	if c.done {
		return
	}
	if c.started {
		t.finish(c, false, true, "")
	} else {
		c.done = true
	}
	// Its task call ends with it: Copilot reports no end of a call it
	// stopped.
	if key := c.par.id + "/" + c.call; t.open[key] == nil {
		t.open[key] = &call{name: "task", ended: true}
		t.emit(c.par, event.ToolComplete, c.call, event.ToolCompleteData{Name: "task", Cancelled: true, Error: "interrupted"})
	}
}

// closeOpen ends a's tool calls still open, before a's own end: Copilot
// reports no end of a command still running (a bash call) in an agent it
// stopped, and every call must close before its agent ends. A later
// report of the call is dropped.
func (t *Translator) closeOpen(a *agent) {
	prefix := a.id + "/"
	var keys []string
	for k, c := range t.open {
		if !c.ended && strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		c := t.open[k]
		c.ended = true
		t.emit(a, event.ToolComplete, strings.TrimPrefix(k, prefix),
			event.ToolCompleteData{Name: c.name, Cancelled: true, Error: "interrupted: the agent ended before the call returned"})
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
		if c := t.byCall[d.ToolCallID]; c != nil {
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
		if c := t.byCall[d.ToolCallID]; c != nil {
			t.completed(c, d)
		}
	case *sdk.SubagentFailedData:
		if c := t.byCall[d.ToolCallID]; c != nil {
			t.failed(c, d)
		}
	}
}

// subagentEvent translates an event a sub-agent's agentId names.
func (t *Translator) subagentEvent(id string, ev sdk.SessionEvent) {
	if d, ok := ev.Data.(*sdk.SubagentStartedData); ok {
		t.bind(id, d)
		return
	}
	c := t.byAgent[id]
	if c == nil {
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
			c.last = d.Content
		}
	case *sdk.ToolExecutionStartData:
		if d.ToolName == "task" { // a sub-agent's own sub-agent
			t.spawn(c, d)
			return
		}
		t.toolStart(c, d.ToolCallID, d.ToolName, d.Arguments)
	case *sdk.ToolExecutionCompleteData:
		if k := t.byCall[d.ToolCallID]; k != nil && k.par == c {
			t.taskComplete(k, d)
			return
		}
		t.toolComplete(c, d)
	case *sdk.AssistantUsageData:
		t.tokens(c, d)
	case *sdk.SubagentCompletedData:
		t.completed(c, d)
	case *sdk.SubagentFailedData:
		t.failed(c, d)
	case *sdk.SessionErrorData:
		t.emit(c, event.Error, "", event.ErrorData{Message: d.Message})
	}
}

// spawn reserves the sub-agent a task call of parent's starts and
// announces the call with its id and session: from the first event that
// names it, the sub-agent has its own id and its parent.
func (t *Translator) spawn(parent *agent, d *sdk.ToolExecutionStartData) {
	if t.byCall[d.ToolCallID] != nil {
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
	kind := in.Type()
	id := t.kids.Name(kind)
	desc := firstNonEmpty(in.Description, in.Name, summary(in.Prompt))
	c := &agent{id: id, session: t.cfg.SessionID + "/" + id, parent: parent.id, par: parent, call: call, kind: kind,
		desc: desc, prompt: in.Prompt, model: in.Model, background: in.Background}
	t.byCall[call] = c
	input := event.TaskCall(event.TaskInput{Description: desc, Prompt: in.Prompt, SubagentType: kind,
		Mode: event.TaskSync, Background: in.Background})
	parent.toolUses++
	parent.current = "task"
	t.emit(parent, event.ToolStart, call, event.ToolStartData{Name: "task", Input: input, SubagentID: id, SubagentSessionID: c.session})
	t.update(parent)
	return c
}

// bind gives the task call's sub-agent its agentId: its session starts,
// and what it reported before is replayed.
func (t *Translator) bind(id string, d *sdk.SubagentStartedData) {
	c := t.byCall[d.ToolCallID]
	if c == nil { // a task call not seen: the lead's, as nothing else names it
		c = t.newChild(t.lead, d.ToolCallID, event.TaskInput{Name: d.AgentDisplayName, Description: d.AgentDescription, SubagentType: d.AgentName})
	}
	if c.started || c.done {
		return
	}
	c.copilotID, c.started = id, true
	if d.Model != nil && *d.Model != "" {
		c.model = *d.Model
	}
	t.byAgent[id] = c
	t.kids.Bind(id, c.id)
	t.emit(c, event.SubagentStart, c.call, event.SubagentStartData{AgentType: c.kind, Description: c.desc,
		Prompt: c.prompt, Background: c.background, Model: c.model, Backend: backend.Copilot})
	t.emit(c, event.SessionStart, "", event.SessionStartData{Model: c.model, Provider: backend.Copilot, Name: c.kind})
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
	key := c.par.id + "/" + c.call
	if t.open[key] != nil {
		return
	}
	t.open[key] = &call{name: "task", ended: true} // a task call completes once
	out := toolEnd(d)
	out.Name = "task"
	if !c.started && !c.done { // the spawn failed: no sub-agent will report
		c.done = true
	}
	t.emit(c.par, event.ToolComplete, c.call, out)
}

func (t *Translator) completed(c *agent, d *sdk.SubagentCompletedData) {
	if d.TotalToolCalls != nil && int(*d.TotalToolCalls) > c.toolUses {
		c.toolUses = int(*d.TotalToolCalls)
	}
	cancelled := d.Cancelled != nil && *d.Cancelled
	t.finish(c, !cancelled, cancelled, "")
}

func (t *Translator) failed(c *agent, d *sdk.SubagentFailedData) {
	t.finish(c, false, false, firstNonEmpty(d.Error, "sub-agent failed"))
}

// finish reports a sub-agent's end once. A background sub-agent's end
// while the lead is idle wakes the lead: Copilot starts a lead turn with
// its result, so the session is pending before the end is told.
func (t *Translator) finish(c *agent, ok, cancelled bool, errText string) {
	if c.done || !c.started {
		return
	}
	c.done, c.current = true, ""
	t.closeOpen(c)
	if c.background && !cancelled && t.turns.Woke() {
		t.began() // under way from now on, as Copilot starts it
	}
	d := event.SubagentCompleteData{Success: ok, ToolUses: c.toolUses, Usage: c.usage, Result: c.last}
	switch {
	case cancelled:
		d.Cancelled, d.Error = true, "interrupted"
	case !ok:
		d.Error = errText
	}
	t.emit(c, event.SubagentComplete, c.call, d)
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
	key := a.id + "/" + id
	if t.open[key] != nil {
		return
	}
	name = ourToolName(name)
	t.open[key] = &call{name: name}
	in, _ := json.Marshal(args)
	a.toolUses++
	a.current = name
	t.emit(a, event.ToolStart, id, event.ToolStartData{Name: name, Input: in})
	t.update(a)
}

func (t *Translator) toolComplete(a *agent, d *sdk.ToolExecutionCompleteData) {
	key := a.id + "/" + d.ToolCallID
	if t.open[key] == nil {
		t.toolStart(a, d.ToolCallID, "tool", nil) // a call reported only when it ended
	}
	c := t.open[key]
	if c.ended {
		return
	}
	c.ended = true
	out := toolEnd(d)
	out.Name = c.name
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

// update reports a sub-agent's progress (the lead has none).
func (t *Translator) update(a *agent) {
	if a == t.lead || a.done || !a.started {
		return
	}
	t.emit(a, event.SubagentUpdate, a.call, event.SubagentUpdateData{CurrentTool: a.current, ToolUses: a.toolUses, Usage: a.usage})
}

// tokens adds one model call's usage to a's running total and reports it.
func (t *Translator) tokens(a *agent, d *sdk.AssistantUsageData) {
	in, cached := deref(d.InputTokens), deref(d.CacheReadTokens)
	a.usage = a.usage.Add(event.Usage{
		InputTokens:         max(0, in-cached),
		CacheReadTokens:     cached,
		CacheCreationTokens: deref(d.CacheWriteTokens),
		OutputTokens:        deref(d.OutputTokens),
	})
	if d.Cost != nil {
		a.usage.CostUSD += *d.Cost
	}
	total := t.lead.usage
	for _, c := range t.byCall {
		total = total.Add(c.usage)
	}
	t.emit(a, event.UsageUpdate, "", event.UsageUpdateData{Usage: a.usage, Total: total})
	t.update(a)
}

func (t *Translator) emit(a *agent, typ event.Type, call string, data any) {
	t.cfg.Sink.Emit(event.Event{Type: typ, Time: t.cfg.Now(), SessionID: a.session, AgentID: a.id,
		ParentAgentID: a.parent, ToolCallID: call, Data: t.kids.RewriteData(data)})
}

// toolNames maps the CLI's tools that have an Atomic counterpart to its
// name, so events and the TUI speak of them as of native calls.
var toolNames = map[string]string{"view": "read", "create": "write", "str_replace": "edit", "edit": "edit"}

func ourToolName(name string) string {
	if n, ok := toolNames[name]; ok {
		return n
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
