package codex

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/tools"
)

// maxEarly bounds the notifications kept for a thread not yet known (a
// child whose spawn item has not named it yet).
const maxEarly = 512

// Translator turns the app-server's notifications into §1 events: the
// lead's thread becomes cfg.AgentID, every thread its spawn items name
// becomes a sub-agent of the agent that spawned it. It holds no process: the
// Session feeds it, and the replay tests feed it captured streams. Safe for
// concurrent use; events are emitted in the order the messages arrive.
type Translator struct {
	cfg backend.Config
	// reply answers a server request (result, or rpcErr when not nil).
	reply func(id json.RawMessage, result any, rpcErr *rpcError) error

	mu    sync.Mutex
	lead  *agent
	kids  *backend.Children[thread] // by spawn item id and thread; every tool call
	early map[string][]inbound      // notifications of threads not yet known
	files map[string][]string       // fileChange item id → paths it changes
	// leadUsage is the lead's tokens so far, for Run's result.
	leadUsage event.Usage
	// statesEnd: a wait's agents_states end sub-agents (exec, whose
	// stream has no child threads; see ExecTranslator).
	statesEnd bool
}

// agent is the lead or one sub-agent; the lead's record is kept out of
// kids.
type agent = backend.Child[thread]

// thread is what the translator keeps of an agent besides its record.
type thread struct {
	par          *agent // the agent that spawned it (nil: the lead)
	thread       string // its Codex thread ("" until its spawn names it)
	desc, prompt string
	model        string
	turn         string        // the running turn's id
	started      bool          // its thread is known: its session started
	cancel       bool          // CancelAgent asked before its turn began
	ended        chan struct{} // closed by finish
	current      string
	last         string      // the last agentMessage text
	reported     tokenCounts // the thread's usage as last reported
}

// TurnEnd is the end of one of the lead's turns.
type TurnEnd struct {
	TurnID string
	// Status is Codex's: completed, interrupted or failed.
	Status, Error string
	// Text is the lead's last message in the turn.
	Text string
}

// Note tells the Session what a notification meant for the lead's turns.
type Note struct {
	// LeadTurnStarted is the id of a lead turn that began.
	LeadTurnStarted string
	// LeadTurnEnded is set when a lead turn ended.
	LeadTurnEnded *TurnEnd
	// Interrupt is a sub-agent's turn that began after CancelAgent asked
	// to stop it: the Session interrupts it.
	Interrupt *Stop
}

// Stop names a sub-agent's turn to interrupt, and when it has ended.
type Stop struct {
	Thread, Turn string
	// Ended is closed when the sub-agent has ended.
	Ended <-chan struct{}
	// ID is the sub-agent's id.
	ID string
}

// NewTranslator returns a translator emitting to cfg.Sink, deciding
// approvals through cfg.Gate and answering server requests with reply.
func NewTranslator(cfg backend.Config, reply func(id json.RawMessage, result any, rpcErr *rpcError) error) *Translator {
	cfg = cfg.WithDefaults()
	return &Translator{cfg: cfg, reply: reply, kids: backend.NewChildren[thread](cfg),
		early: map[string][]inbound{}, files: map[string][]string{}}
}

// SetLead makes th the lead's thread (thread/start's result; a Reset
// starts a new one). The sub-agents of an earlier lead thread keep their
// records.
func (t *Translator) SetLead(th string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lead = &agent{ID: t.cfg.AgentID, SessionID: t.cfg.SessionID, Parent: t.cfg.ParentID, X: thread{thread: th, started: true}}
	t.flush(th)
}

// of is the agent whose thread is th: the lead or a sub-agent whose spawn
// named it; nil when none is.
func (t *Translator) of(th string) *agent {
	if t.lead != nil && th == t.lead.X.thread {
		return t.lead
	}
	if c := t.kids.Of(th); c != nil && c.X.started && c.X.thread == th {
		return c
	}
	return nil
}

// LeadUsage is the lead's token usage so far.
func (t *Translator) LeadUsage() event.Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.leadUsage
}

// EndAll ends every sub-agent still running as interrupted: the session
// is closing, or the CLI did not confirm an interrupt in time, and nothing
// more will come from their threads.
func (t *Translator) EndAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endChildren()
	if t.lead != nil {
		t.closeOpen(t.lead)
	}
}

// closeOpen ends a's tool calls still open, before a's own end (a
// sub-agent's subagent.complete, the lead's turn end): Codex reports no
// end of a command still running in a turn it interrupted, and every call
// must close before its agent ends. A later report of the call is dropped.
func (t *Translator) closeOpen(a *agent) {
	for _, k := range t.kids.CloseCalls(a.ID) {
		a.X.current = ""
		t.emit(a, event.ToolComplete, k.ID,
			event.ToolCompleteData{Name: k.Name, Cancelled: true, Error: "interrupted: the agent ended before the call returned"})
	}
}

// RunningTurns lists the threads and ids of the turns under way (the
// lead's and its sub-agents'), for turn/interrupt.
func (t *Translator) RunningTurns() (threads, turns []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, a := range t.agents() {
		if a.X.turn != "" {
			threads, turns = append(threads, a.X.thread), append(turns, a.X.turn)
		}
	}
	return threads, turns
}

// Threads lists every thread the session knows: the lead's and its
// sub-agents'.
func (t *Translator) Threads() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, a := range t.agents() {
		out = append(out, a.X.thread)
	}
	return out
}

// agents lists the lead and every sub-agent whose thread is known.
func (t *Translator) agents() []*agent {
	var out []*agent
	if t.lead != nil {
		out = append(out, t.lead)
	}
	for _, c := range t.kids.All() {
		if c.X.started {
			out = append(out, c)
		}
	}
	return out
}

// Handle translates one notification.
func (t *Translator) Handle(m inbound) Note {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.handle(m)
}

func (t *Translator) handle(m inbound) Note {
	p := &m.Params
	if p.ThreadID == "" {
		return Note{} // not about a thread (rate limits, remote control…)
	}
	a := t.of(p.ThreadID)
	if a == nil {
		if q := t.early[p.ThreadID]; len(q) < maxEarly {
			t.early[p.ThreadID] = append(q, m)
		}
		return Note{}
	}
	switch m.Method {
	case "turn/started":
		a.X.turn = p.Turn.ID
		if a == t.lead {
			return Note{LeadTurnStarted: p.Turn.ID}
		}
		if a.X.cancel && !a.Done {
			return Note{Interrupt: a.X.stop(a.ID)}
		}
	case "turn/completed":
		return t.turnCompleted(a, p.Turn)
	case "item/started", "item/completed":
		if p.Item != nil {
			t.item(a, m.Method == "item/started", p.Item)
		}
	case "item/agentMessage/delta":
		if p.Delta != "" {
			t.emit(a, event.MessageDelta, "", event.MessageDeltaData{Text: p.Delta})
		}
	case "turn/plan/updated":
		t.emit(a, event.PlanUpdate, "", event.PlanUpdateData{Todos: todos(p.Plan)})
	case "thread/tokenUsage/updated":
		if p.TokenUsage != nil {
			t.tokens(a, p.TokenUsage)
		}
	case "error":
		if !p.WillRetry && p.Error.Message != "" {
			t.emit(a, event.Error, "", event.ErrorData{Message: p.Error.Message})
		}
	}
	return Note{}
}

// turnCompleted ends a's turn. A sub-agent's own turn end is its real end;
// the lead's ends only Run's turn, except that an interrupted lead turn
// takes its sub-agents with it (Codex stops them and reports nothing more).
func (t *Translator) turnCompleted(a *agent, tu turn) Note {
	a.X.turn = ""
	errText := ""
	if tu.Error != nil {
		errText = tu.Error.Message
	}
	if a != t.lead {
		t.finish(a, tu.Status, errText)
		return Note{}
	}
	if tu.Status == "interrupted" {
		t.endChildren()
	}
	t.closeOpen(a)
	if tu.Status == "failed" && errText != "" {
		t.emit(a, event.Error, "", event.ErrorData{Message: errText})
	}
	end := &TurnEnd{TurnID: tu.ID, Status: tu.Status, Error: errText, Text: a.X.last}
	return Note{LeadTurnEnded: end}
}

// endChildren ends every sub-agent (and spawn) still under way as
// interrupted.
func (t *Translator) endChildren() {
	kids := t.kids.Open()
	slices.SortFunc(kids, func(a, b *agent) int { return strings.Compare(a.SessionID, b.SessionID) })
	for _, c := range kids {
		if c.X.started {
			c.X.turn = ""
			t.finish(c, "interrupted", "")
			continue
		}
		c.Done = true // a spawn that never named a thread
		t.closeTask(c, event.ToolCompleteData{Name: "task", Cancelled: true, Error: "interrupted"})
	}
}

// Cancel finds sub-agent id for CancelAgent. A running turn comes back
// to be interrupted; without one (its spawn or turn still to begin) the
// turn is interrupted when it begins, through Note.Interrupt. An agent
// already ended needs nothing: nil, nil.
func (t *Translator) Cancel(id string) (*Stop, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.kids.Get(id)
	if a == nil {
		return nil, fmt.Errorf("codex: no sub-agent %q was started by this session", id)
	}
	if a.Done {
		return nil, nil
	}
	a.X.cancel = true
	if a.X.turn == "" {
		return nil, nil
	}
	return a.X.stop(a.ID), nil
}

// EndAgent ends sub-agent id as interrupted if it has not ended: Codex
// did not confirm the interrupt of its turn.
func (t *Translator) EndAgent(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := t.kids.Get(id); c != nil {
		c.X.turn = ""
		t.finish(c, "interrupted", "")
	}
}

// stop is the Stop of the running turn of sub-agent id.
func (x *thread) stop(id string) *Stop {
	return &Stop{Thread: x.thread, Turn: x.turn, Ended: x.ended, ID: id}
}

// finish reports a sub-agent's end once: completed, interrupted or failed.
func (t *Translator) finish(a *agent, status, errText string) {
	if a.Done || !a.X.started {
		return
	}
	a.Done = true
	close(a.X.ended)
	a.X.current = ""
	t.closeOpen(a)
	d := event.SubagentCompleteData{Result: a.X.last}
	switch status {
	case "completed":
		d.Success = true
	case "interrupted":
		d.Cancelled, d.Error = true, "interrupted"
	default:
		d.Error = firstNonEmpty(errText, "sub-agent turn "+status)
	}
	t.emit(a, event.SubagentComplete, a.Call, d)
}

// item translates item/started and item/completed.
func (t *Translator) item(a *agent, started bool, it *item) {
	switch it.Type {
	case "agentMessage":
		if !started {
			a.X.last = it.Text
			t.emit(a, event.MessageComplete, "", event.MessageCompleteData{Text: it.Text})
		}
	case "commandExecution":
		if started {
			t.toolStart(a, it.ID, "bash", map[string]string{"command": unwrapShell(it.Command)})
			return
		}
		ok := it.Status == "completed" && (it.ExitCode == nil || *it.ExitCode == 0)
		out := ""
		if it.AggregatedOutput != nil {
			out = *it.AggregatedOutput
		}
		errText := ""
		if !ok {
			errText = firstNonEmpty(out, "command "+it.Status)
		}
		t.toolComplete(a, it.ID, "bash", map[string]string{"command": unwrapShell(it.Command)}, ok, out, errText)
	case "fileChange":
		paths := make([]string, 0, len(it.Changes))
		for _, c := range it.Changes {
			paths = append(paths, c.Path)
		}
		in := map[string][]string{"paths": paths}
		if started {
			t.files[it.ID] = paths
			t.toolStart(a, it.ID, "edit", in)
			return
		}
		delete(t.files, it.ID)
		ok := it.Status == "completed"
		t.toolComplete(a, it.ID, "edit", in, ok, strings.Join(paths, "\n"), ifNot(ok, "file change "+it.Status))
	case "mcpToolCall":
		name := "mcp__" + it.Server + "__" + it.Tool
		if started {
			t.toolStart(a, it.ID, name, it.Arguments)
			return
		}
		ok := it.Status == "completed"
		t.toolComplete(a, it.ID, name, it.Arguments, ok, string(it.Result), ifNot(ok, firstNonEmpty(string(it.Error), "tool call "+it.Status)))
	case "collabAgentToolCall":
		if it.Tool == "spawnAgent" {
			t.spawnV1(a, started, it)
			return
		}
		name := collabToolName(it.Tool)
		in := map[string]any{"targets": it.ReceiverThreadIDs}
		if started {
			t.toolStart(a, it.ID, name, in)
			return
		}
		t.agentStates(it.AgentsStates)
		if t.statesEnd {
			t.endByStates(it.AgentsStates)
		}
		ok := it.Status == "completed"
		t.toolComplete(a, it.ID, name, in, ok, states(it.AgentsStates), ifNot(ok, name+" "+it.Status))
	case "subAgentActivity":
		if it.Kind == "started" {
			t.spawnV2(a, started, it)
		}
	}
}

// spawnV1 handles a v1 spawnAgent call: its item/started announces the
// task call (the agent's id reserved), its item/completed names the child
// thread, which starts the sub-agent; the spawn's success is only the
// acknowledgement of a background agent.
func (t *Translator) spawnV1(a *agent, started bool, it *item) {
	c := t.kids.Of(it.ID)
	if c == nil {
		c = t.newChild(a, it.ID, "", deref(it.Prompt), deref(it.Model))
	}
	if started || c.X.started || c.Done {
		return // announced; or a repeated report of its end
	}
	if it.Status != "completed" || len(it.ReceiverThreadIDs) == 0 {
		c.Done = true // it never ran
		t.closeTask(c, event.ToolCompleteData{Name: "task", Error: "spawn_agent " + it.Status, Cancelled: it.Status == "interrupted"})
		return
	}
	ack := event.ToolCompleteData{Name: "task", Success: true,
		Result: "spawned " + strings.Join(it.ReceiverThreadIDs, ", ") + " (runs in the background)"}
	kids := make([]*agent, len(it.ReceiverThreadIDs))
	for i, th := range it.ReceiverThreadIDs {
		if i > 0 { // one call spawning more agents: each its own record and call
			c = t.newChild(a, it.ID+"#"+th, "", deref(it.Prompt), deref(it.Model))
		}
		if m := deref(it.Model); m != "" {
			c.X.model = m
		}
		t.bind(c, th)
		kids[i] = c
	}
	t.agentStates(it.AgentsStates)
	for _, c := range kids {
		t.closeTask(c, ack)
	}
}

// spawnV2 handles a v2 subAgentActivity "started" item, which names the
// child thread from the start.
func (t *Translator) spawnV2(a *agent, started bool, it *item) {
	c := t.kids.Of(it.ID)
	if c == nil {
		if t.of(it.AgentThreadID) != nil {
			return // both the started and completed item were seen
		}
		c = t.newChild(a, it.ID, path.Base(it.AgentPath), "", deref(it.Model))
		t.bind(c, it.AgentThreadID)
	}
	if !started {
		t.closeTask(c, event.ToolCompleteData{Name: "task", Success: true,
			Result: "spawned " + it.AgentPath + " (runs in the background)"})
	}
}

// newChild reserves a sub-agent for spawn call id of parent and announces
// the task call (tool.start with the reserved id and session).
func (t *Translator) newChild(parent *agent, call, desc, prompt, model string) *agent {
	c := t.kids.New(event.DefaultAgentType, parent.ID, call)
	if desc == "" {
		desc = summary(prompt)
	}
	c.X = thread{par: parent, desc: desc, prompt: prompt, model: model, ended: make(chan struct{})}
	in := event.TaskCall(event.TaskInput{Description: desc, Prompt: prompt, SubagentType: c.Type, Background: true})
	t.kids.StartCall(parent.ID, call, "task")
	parent.X.current = "task"
	t.emit(parent, event.ToolStart, call, event.ToolStartData{Name: "task", Input: in, SubagentID: c.ID, SubagentSessionID: c.SessionID})
	t.update(parent)
	return c
}

// closeTask reports the return of c's task call once (the spawn's
// acknowledgement, or why it failed).
func (t *Translator) closeTask(c *agent, d event.ToolCompleteData) {
	if _, open := t.kids.EndCall(c.X.par.ID, c.Call); open {
		t.emit(c.X.par, event.ToolComplete, c.Call, d)
	}
}

// bind gives child c its thread: its session starts, and what its thread
// reported before is replayed.
func (t *Translator) bind(c *agent, th string) {
	c.X.thread, c.X.started = th, true
	t.kids.Bind(th, c.ID)
	t.emit(c, event.SubagentStart, c.Call, event.SubagentStartData{AgentType: c.Type, Description: c.X.desc,
		Prompt: c.X.prompt, Background: true, Model: c.X.model, Backend: backend.Codex})
	t.emit(c, event.SessionStart, "", event.SessionStartData{Model: c.X.model, Provider: backend.Codex, Name: c.Type})
	t.flush(th)
}

// flush replays the notifications thread th sent before it was known.
func (t *Translator) flush(th string) {
	q := t.early[th]
	delete(t.early, th)
	for _, m := range q {
		t.handle(m)
	}
}

// agentStates takes a wait's report of a child's final message, in case
// its own thread reported none.
func (t *Translator) agentStates(st map[string]agentState) {
	for th, s := range st {
		if c := t.of(th); c != nil && c.X.last == "" && s.Message != nil {
			c.X.last = *s.Message
		}
	}
}

func (t *Translator) toolStart(a *agent, id, name string, input any) {
	if !t.kids.StartCall(a.ID, id, name) {
		return
	}
	in, _ := json.Marshal(input)
	a.X.current = name
	t.emit(a, event.ToolStart, id, event.ToolStartData{Name: name, Input: in})
	t.update(a)
}

func (t *Translator) toolComplete(a *agent, id, name string, input any, ok bool, result, errText string) {
	if open, ended := t.kids.CallState(a.ID, id); ended {
		return // closed when its agent ended, or reported again
	} else if !open {
		t.toolStart(a, id, name, input) // a call reported only when it ended
	}
	t.kids.EndCall(a.ID, id)
	d := event.ToolCompleteData{Name: name, Success: ok}
	if ok {
		d.Result = result
	} else {
		d.Error = errText
	}
	t.emit(a, event.ToolComplete, id, d)
	t.update(a)
}

// update reports a sub-agent's progress (the lead has none); the reducer
// fills in its counts.
func (t *Translator) update(a *agent) {
	if a == t.lead || a.Done || !a.X.started {
		return
	}
	t.emit(a, event.SubagentUpdate, a.Call, event.SubagentUpdateData{CurrentTool: a.X.current})
}

// tokens reports a thread's last model request (a delta the reducer
// adds). Codex reports the thread's total with it; a report whose total
// has not grown repeats the last one and is dropped.
func (t *Translator) tokens(a *agent, tu *tokenUsage) {
	if tu.Total == a.X.reported {
		return
	}
	a.X.reported = tu.Total
	t.usage(a, tu.Last, tu.ModelContextWindow)
}

// usage reports tokens of a's as a delta.
func (t *Translator) usage(a *agent, n tokenCounts, window int64) {
	u := event.Usage{
		InputTokens:         max(0, n.InputTokens-n.CachedInputTokens),
		CacheReadTokens:     n.CachedInputTokens,
		CacheCreationTokens: n.CacheWriteInputTokens,
		OutputTokens:        n.OutputTokens,
		ContextWindow:       window,
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

// collabToolName is the model-facing name of a v1 collab tool.
func collabToolName(tool string) string {
	switch tool {
	case "wait":
		return "wait_agent"
	case "sendInput":
		return "send_input"
	case "resumeAgent":
		return "resume_agent"
	case "closeAgent":
		return "close_agent"
	}
	return tool
}

// states renders a wait's agent states as its result.
func states(st map[string]agentState) string {
	var b strings.Builder
	for th, s := range st {
		b.WriteString(th + ": " + s.Status)
		if s.Message != nil {
			b.WriteString(": " + *s.Message)
		}
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// summary is a task's description from its prompt: its first line, cut.
func summary(prompt string) string {
	s, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ifNot(ok bool, s string) string {
	if ok {
		return ""
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// todos is a Codex plan as our plan's items; Codex spells in_progress
// inProgress.
func todos(plan []planStep) []event.Todo {
	out := make([]event.Todo, len(plan))
	for i, s := range plan {
		status := s.Status
		if status == "inProgress" {
			status = tools.TodoInProgress
		}
		out[i] = event.Todo{Content: s.Step, Status: status}
	}
	return out
}
