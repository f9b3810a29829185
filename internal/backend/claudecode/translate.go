package claudecode

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Backend is the name subagent.start gives the CLI's sub-agents.
const Backend = "claude-code"

// translator turns the CLI's stdout lines into SPEC §1 events. It holds no
// process and does no I/O beyond its sink, so a captured stream can be
// replayed through it. It is not safe for concurrent use: one reader feeds
// it.
type translator struct {
	sessionID, lead string
	// parent is the lead's own parent when the session is a sub-agent in
	// a larger tree; namer names the CLI's sub-agents (backend.Config.Name).
	parent string
	namer  func(agentType string) string
	sink   event.Sink
	now    func() time.Time

	started bool
	model   string
	// cliSession is the CLI's id of the lead's conversation (system/init),
	// told to onCLISession when it is new.
	cliSession   string
	onCLISession func(id string)

	counts map[string]int    // agent type → sub-agents named so far
	byCall map[string]*agent // Agent tool_use id → its sub-agent
	byTask map[string]*agent // the CLI's task id → sub-agent
	// toolTasks are the tasks that are tool calls, not sub-agents (a long
	// Bash), by task id: whether each runs in the background.
	toolTasks map[string]bool
	agents    []*agent          // in the order they were named
	tools     map[string]string // tool_use id → our tool name, while the call is open
	callers   map[string]*agent // tool_use id → the sub-agent that made the call (absent: the lead)

	// leadText is the lead's streamed text not yet confirmed by its
	// assistant line; a sub-agent's is on its agent.
	leadText streamed

	leadUsage event.Usage
	total     event.Usage
	toolUses  int // the lead's tool calls since the last result
	// l is the line being translated, kept so that each line does not
	// allocate one.
	l line
	// tasks maps our agent id to the CLI's task_id; CancelAgent reads it
	// from other goroutines.
	tasks sync.Map
}

// agent is one of the CLI's sub-agents under the id we gave it.
type agent struct {
	id, sessionID, parent, callID string
	background, started, done     bool
	// seen counts the tool calls we saw; reported is the CLI's count,
	// which may run ahead of the calls' own lines.
	seen, reported int
	usage          event.Usage
	currentTool    string
	text           streamed
}

// streamed is the text an agent's message streamed (stream_event lines,
// --include-partial-messages) that no assistant line has carried yet: the
// CLI writes an assistant line for each content block once it is done,
// and that line's text, already shown piece by piece, must not be sent
// again as a delta.
type streamed struct {
	msgID  string
	blocks []streamedBlock // text blocks in stream order
}

type streamedBlock struct {
	index int
	text  string
}

func (t *translator) streamedOf(a *agent) *streamed {
	if a == nil {
		return &t.leadText
	}
	return &a.text
}

func (a *agent) toolUses() int { return max(a.seen, a.reported) }

func newTranslator(sessionID, lead string, sink event.Sink, now func() time.Time) *translator {
	if now == nil {
		now = time.Now
	}
	return &translator{
		sessionID: sessionID, lead: lead, sink: sink, now: now,
		counts: map[string]int{}, byCall: map[string]*agent{},
		byTask: map[string]*agent{}, tools: map[string]string{}, callers: map[string]*agent{}, toolTasks: map[string]bool{},
	}
}

// step is what a line means for the session driving the process, beyond
// the events the translator emitted for it.
type step struct {
	// result ends a turn.
	result *turnResult
	// ask is a can_use_tool request to answer; cancel names a request the
	// CLI withdrew.
	ask    *approval
	cancel string
	// leadBegan: the lead started a turn (system/init). bgDone: a
	// background sub-agent (or command) ended, whose result the CLI hands
	// the lead: in its next request of the turn, else in a turn of its
	// own. leadAsks: the lead's loop sent a request (system/status
	// requesting), which carries what ended before it.
	leadBegan, bgDone, leadAsks bool
	// answered is the request id of a control_response: the CLI answered
	// one of our control requests.
	answered string
}

// turnResult is a `result` line, as Run reports it.
type turnResult struct {
	Text       string
	StopReason string
	IsError    bool
	Errors     []string
	NumTurns   int
	Usage      event.Usage
	ToolUses   int
}

// approval is a can_use_tool request with the agent it comes from.
type approval struct {
	requestID string
	req       canUseTool
	agent     *agent // nil: the lead
}

// feed translates one stdout line. A line that is not JSON is an error;
// kinds the adapter does not use are skipped, undecoded when their start
// names them (see unused).
func (t *translator) feed(raw []byte) (step, error) {
	if id, ok := answered(raw); ok {
		return step{answered: id}, nil
	}
	if unused(raw) {
		return step{}, nil
	}
	l := &t.l
	*l = line{}
	if err := decodeLine(raw, l); err != nil {
		return step{}, fmt.Errorf("claude stream-json: bad line %.200q: %w", raw, err)
	}
	switch l.Type {
	case "system":
		return t.system(l), nil
	case "stream_event":
		t.streamEvent(l)
	case "assistant":
		t.assistant(l)
	case "user":
		t.user(l)
	case "result":
		return step{result: t.result(l)}, nil
	case "control_request":
		if req := l.Request; req.Subtype == "can_use_tool" {
			return step{ask: &approval{requestID: l.RequestID, req: req, agent: t.byTask[req.AgentID]}}, nil
		}
	case "control_cancel_request":
		return step{cancel: l.RequestID}, nil
	}
	return step{}, nil
}

func (t *translator) emit(typ event.Type, a *agent, callID string, data any) {
	e := event.Event{Type: typ, Time: t.now(), SessionID: t.sessionID, AgentID: t.lead, ParentAgentID: t.parent, ToolCallID: callID, Data: data}
	if a != nil {
		e.SessionID, e.AgentID, e.ParentAgentID = a.sessionID, a.id, a.parent
	}
	t.sink.Emit(e)
}

func (t *translator) system(l *line) step {
	switch l.Subtype {
	case "init":
		if l.Model != "" {
			t.model = l.Model
		}
		if l.SessionID != "" && l.SessionID != t.cliSession && l.ParentToolUseID == "" {
			t.cliSession = l.SessionID
			if t.onCLISession != nil {
				t.onCLISession(l.SessionID)
			}
		}
		if !t.started {
			t.started = true
			t.emit(event.SessionStart, nil, "", event.SessionStartData{
				Model: l.Model, Provider: Backend, Tools: ourToolNames(l.Tools), Name: t.lead})
		}
		return step{leadBegan: true}
	case "status":
		return step{leadAsks: l.Status == "requesting"}
	case "task_started":
		a := t.byCall[l.ToolUseID]
		if a == nil && (l.TaskType != "" && l.TaskType != "local_agent" || t.tools[l.ToolUseID] != "") {
			if l.TaskID != "" {
				t.toolTasks[l.TaskID] = l.IsBackgrounded
			}
			return step{}
		}
		if a == nil { // a task not announced by a tool_use we saw
			a = t.name(l.SubagentType, t.lead, l.ToolUseID, l.IsBackgrounded)
		}
		if a.started {
			return step{}
		}
		a.started = true
		a.background = a.background || l.IsBackgrounded
		if l.TaskID != "" {
			t.byTask[l.TaskID] = a
			t.tasks.Store(a.id, l.TaskID)
		}
		t.emit(event.SubagentStart, a, a.callID, event.SubagentStartData{
			AgentType: agentType(l.SubagentType), Description: l.Description, Prompt: l.Prompt,
			Background: a.background, Model: t.model, Backend: Backend})
		t.emit(event.SessionStart, a, "", event.SessionStartData{Model: t.model, Provider: Backend, Name: agentType(l.SubagentType)})
	case "task_progress":
		a := t.task(l)
		if a == nil || a.done {
			return step{}
		}
		u := l.Usage.taskUsage
		a.reported = max(a.reported, u.ToolUses)
		if u.TotalTokens > 0 {
			a.usage = tokens(u.TotalTokens)
		}
		if l.LastToolName != "" {
			a.currentTool = ourToolName(l.LastToolName)
		}
		t.update(a)
	case "task_updated":
		if a := t.task(l); a != nil && !a.done {
			if l.Patch != nil && l.Patch.Status != "" && l.Patch.Status != "running" {
				a.currentTool = "" // it stopped working; its notification follows
			}
			t.update(a)
		}
	case "task_notification":
		if bg, ok := t.toolTasks[l.TaskID]; ok {
			delete(t.toolTasks, l.TaskID)
			return step{bgDone: bg}
		}
		a := t.task(l)
		if a == nil || a.done {
			return step{}
		}
		a.done = true
		u := l.Usage.taskUsage
		a.reported = max(a.reported, u.ToolUses)
		if u.TotalTokens > 0 {
			a.usage = tokens(u.TotalTokens)
		}
		d := event.SubagentCompleteData{ToolUses: a.toolUses(), Usage: a.usage}
		switch l.Status {
		case "completed":
			d.Success, d.Result = true, l.Summary
		case "stopped", "killed":
			d.Cancelled, d.Error = true, "cancelled: the agent was stopped"
		default:
			d.Error = firstNonEmpty(l.Summary, "sub-agent "+firstNonEmpty(l.Status, "failed"))
		}
		t.closeCalls(a)
		if a.usage != (event.Usage{}) {
			t.total = t.total.Add(a.usage)
			t.emit(event.UsageUpdate, a, "", event.UsageUpdateData{Usage: a.usage, Total: t.total})
		}
		t.emit(event.SubagentComplete, a, a.callID, d)
		return step{bgDone: a.background}
	}
	return step{}
}

// task finds the sub-agent a task_* line is about.
func (t *translator) task(l *line) *agent {
	if a := t.byTask[l.TaskID]; a != nil {
		return a
	}
	return t.byCall[l.ToolUseID]
}

func (t *translator) update(a *agent) {
	t.emit(event.SubagentUpdate, a, a.callID, event.SubagentUpdateData{
		CurrentTool: a.currentTool, ToolUses: a.toolUses(), Usage: a.usage})
}

// owner is the agent whose message l is: the sub-agent whose Agent call
// is its parent_tool_use_id, else the lead (nil).
func (t *translator) owner(l *line) *agent {
	if l.ParentToolUseID == "" {
		return nil
	}
	return t.byCall[l.ParentToolUseID]
}

func (t *translator) assistant(l *line) {
	if l.Message == nil {
		return
	}
	a := t.owner(l)
	for _, b := range l.Message.Content {
		switch b.Type {
		case "text":
			if b.Text == "" {
				continue
			}
			t.text(a, l.Message.ID, b.Text)
			t.emit(event.MessageComplete, a, "", event.MessageCompleteData{Text: b.Text, StopReason: event.StopReason(l.Message.StopReason)})
		case "tool_use":
			t.toolUse(a, b)
		}
	}
}

// streamEvent streams an agent's text as the model writes it. A message
// that starts while text of an earlier one is still unconfirmed means
// that one was abandoned (the CLI retries a failed request): its text is
// void.
func (t *translator) streamEvent(l *line) {
	ev := l.Event
	if ev == nil {
		return
	}
	a := t.owner(l)
	st := t.streamedOf(a)
	switch ev.Type {
	case "message_start":
		if len(st.blocks) > 0 {
			t.emit(event.MessageDelta, a, "", event.MessageDeltaData{Discard: true})
		}
		st.blocks = st.blocks[:0]
		st.msgID = ""
		if ev.Message != nil {
			st.msgID = ev.Message.ID
		}
	case "content_block_delta":
		if ev.Delta == nil || ev.Delta.Type != "text_delta" || ev.Delta.Text == "" {
			return
		}
		if n := len(st.blocks); n == 0 || st.blocks[n-1].index != ev.Index {
			st.blocks = append(st.blocks, streamedBlock{index: ev.Index})
		}
		st.blocks[len(st.blocks)-1].text += ev.Delta.Text
		t.emit(event.MessageDelta, a, "", event.MessageDeltaData{Text: ev.Delta.Text})
	}
}

// text sends what of a text block of message msgID was not streamed: all
// of it without --include-partial-messages, nothing when its deltas
// spelled it out, the rest when they stopped short, and all of it anew
// (the streamed text voided) when they spelled something else.
func (t *translator) text(a *agent, msgID, text string) {
	st := t.streamedOf(a)
	if msgID == "" || st.msgID != msgID || len(st.blocks) == 0 {
		t.emit(event.MessageDelta, a, "", event.MessageDeltaData{Text: text})
		return
	}
	sent := st.blocks[0].text
	st.blocks = st.blocks[1:]
	switch {
	case sent == text:
	case strings.HasPrefix(text, sent):
		t.emit(event.MessageDelta, a, "", event.MessageDeltaData{Text: text[len(sent):]})
	default:
		t.emit(event.MessageDelta, a, "", event.MessageDeltaData{Discard: true})
		t.emit(event.MessageDelta, a, "", event.MessageDeltaData{Text: text})
	}
}

// toolUse reports a tool call of agent a (nil: the lead). An Agent (or
// Task) call is our task tool: it names its sub-agent at once, so the
// agent has one id from the eager record on.
func (t *translator) toolUse(a *agent, b block) {
	if _, seen := t.tools[b.ID]; seen {
		return
	}
	parent := t.lead
	if a != nil {
		parent = a.id
		a.seen++
		a.currentTool = ourToolName(b.Name)
		if s := subject(b.Name, b.Input); s != "" {
			a.currentTool += " " + s
		}
	} else {
		t.toolUses++
	}
	if !isAgentTool(b.Name) {
		name := ourToolName(b.Name)
		t.tools[b.ID] = name
		if a != nil {
			t.callers[b.ID] = a
		}
		t.emit(event.ToolStart, a, b.ID, event.ToolStartData{Name: name, Input: b.Input})
		if todos, ok := todoList(b.Input); ok && b.Name == "TodoWrite" {
			// The CLI's plan, announced as our todo_write's is.
			t.emit(event.PlanUpdate, a, b.ID, event.PlanUpdateData{Todos: todos})
		}
		if a != nil && !a.done {
			t.update(a)
		}
		return
	}
	t.tools[b.ID] = "task"
	if a != nil {
		t.callers[b.ID] = a
	}
	in, _ := event.ParseTaskInput(b.Input) // a bad input still gets its record; the CLI reports the error
	sub := t.name(in.SubagentType, parent, b.ID, in.Background)
	// The task tool's input as the native tool takes it.
	task := event.TaskInput{Description: in.Description, Model: in.Model, Prompt: in.Prompt,
		SubagentType: in.SubagentType, Background: in.Background}
	t.emit(event.ToolStart, a, b.ID, event.ToolStartData{Name: "task", Input: event.TaskCall(task),
		SubagentID: sub.id, SubagentSessionID: sub.sessionID})
	if a != nil && !a.done {
		t.update(a)
	}
}

// name reserves our id for the sub-agent an Agent call starts:
// <type>-<n>, counted per type, as the native manager names them.
func (t *translator) name(typ, parent, callID string, background bool) *agent {
	typ = strings.ToLower(agentType(typ))
	var id string
	if t.namer != nil {
		id = t.namer(typ)
	} else {
		t.counts[typ]++
		id = fmt.Sprintf("%s-%d", typ, t.counts[typ])
	}
	a := &agent{id: id, sessionID: t.sessionID + "/" + id, parent: parent, callID: callID, background: background}
	if callID != "" {
		t.byCall[callID] = a
	}
	t.agents = append(t.agents, a)
	return a
}

func (t *translator) user(l *line) {
	if l.Message == nil {
		return
	}
	a := t.owner(l)
	for _, b := range l.Message.Content {
		if b.Type != "tool_result" {
			continue
		}
		name, ok := t.tools[b.ToolUseID]
		if !ok {
			continue
		}
		delete(t.tools, b.ToolUseID)
		delete(t.callers, b.ToolUseID)
		text := b.Content.text()
		d := event.ToolCompleteData{Name: name, Success: !b.IsError}
		if name == "task" {
			text = t.taskResult(b, &l.ToolUseResult, text)
		}
		if b.IsError {
			d.Error = text
			if d.Cancelled = cancelled(&l.ToolUseResult); d.Cancelled {
				d.Error = "cancelled: the call was stopped by an interrupt"
			}
		} else {
			d.Result = text
		}
		t.emit(event.ToolComplete, a, b.ToolUseID, d)
	}
}

// taskResult is what the task call returned: the sub-agent's answer (not
// the CLI's hand-back framing), or for a background agent the spawn
// acknowledgement naming our id.
func (t *translator) taskResult(b block, r *toolUseResult, text string) string {
	switch r.Status {
	case "async_launched":
		if sub := t.byCall[b.ToolUseID]; sub != nil {
			return "launched in the background as " + sub.id + "; its result arrives when it finishes"
		}
	case "completed":
		if s := r.Content.text(); s != "" {
			return s
		}
	}
	return text
}

// cancelled reports a tool_result the CLI gave a call it stopped (an
// interrupt), whose tool_use_result is the string "User rejected tool use"
// and whose call never reached a permission prompt.
func cancelled(r *toolUseResult) bool { return strings.Contains(r.Text, "rejected") }

func (t *translator) result(l *line) *turnResult {
	u := l.Usage.apiUsage
	turn := event.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheCreationTokens: u.CacheCreationTokens}
	// The run's total is the sum of what each agent's usage.update says
	// (the lead's turns, each sub-agent's total at its end), as the
	// runtime's meter sums it for complete.usage: it only rises, and the
	// two agree. (modelUsage, cumulative over the CLI's session, splits
	// the same tokens otherwise and counts a sub-agent before its end, so
	// a total taken from it falls back and disagrees with the sum.)
	t.leadUsage = t.leadUsage.Add(turn)
	t.total = t.total.Add(turn)
	// total_cost_usd is cumulative over the session, sub-agents included:
	// the lead carries it, so that the run counts it once.
	if l.TotalCostUSD > t.leadUsage.CostUSD {
		t.total.CostUSD += l.TotalCostUSD - t.leadUsage.CostUSD
		t.leadUsage.CostUSD = l.TotalCostUSD
	}
	for _, m := range l.ModelUsage {
		t.leadUsage.ContextWindow = max(t.leadUsage.ContextWindow, m.ContextWindow)
		t.total.ContextWindow = max(t.total.ContextWindow, m.ContextWindow)
	}
	if st := &t.leadText; len(st.blocks) > 0 {
		// Text that streamed but no assistant line confirmed: the turn
		// was cut short under it. It ends as what was shown.
		var text []string
		for _, b := range st.blocks {
			text = append(text, b.text)
		}
		st.blocks = st.blocks[:0]
		stop := event.StopReason(l.StopReason)
		if l.IsError || l.Subtype != "success" {
			stop = event.StopInterrupted
		}
		t.emit(event.MessageComplete, nil, "", event.MessageCompleteData{Text: strings.Join(text, ""), StopReason: stop})
	}
	t.emit(event.UsageUpdate, nil, "", event.UsageUpdateData{Usage: t.leadUsage, Total: t.total})
	r := &turnResult{Text: l.Result, StopReason: l.StopReason, IsError: l.IsError, Errors: l.Errors,
		NumTurns: l.NumTurns, Usage: turn, ToolUses: t.toolUses}
	t.toolUses = 0
	return r
}

// open lists the sub-agents that have not ended.
func (t *translator) open() []*agent {
	var out []*agent
	for _, a := range t.agents {
		if !a.done {
			out = append(out, a)
		}
	}
	return out
}

// closeCalls ends a's tool calls still open, before a's own end: the CLI
// sends the result of a call its stopped agent was running (a Bash) after
// the agent's notification, or never; every call must close before its
// agent ends, and the late result is dropped.
func (t *translator) closeCalls(a *agent) {
	var ids []string
	for id, c := range t.callers {
		if c == a {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		name := t.tools[id]
		delete(t.tools, id)
		delete(t.callers, id)
		t.emit(event.ToolComplete, a, id, event.ToolCompleteData{Name: name, Cancelled: true,
			Error: "interrupted: the agent ended before the call returned"})
	}
}

// endOpen reports every sub-agent still open as ended (the process went
// away): cancelled when the session closed it, an error when it died.
func (t *translator) endOpen(cancel bool, why string) {
	for _, a := range t.open() {
		a.done = true
		t.closeCalls(a)
		d := event.SubagentCompleteData{ToolUses: a.toolUses(), Usage: a.usage, Error: why, Cancelled: cancel}
		t.emit(event.SubagentComplete, a, a.callID, d)
	}
}

func isAgentTool(name string) bool { return name == "Agent" || name == "Task" }

func agentType(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return event.DefaultAgentType
	}
	return s
}

func tokens(n int64) event.Usage {
	// The CLI reports a sub-agent's tokens only as a total; it is counted
	// as input, where most of an agent's tokens are.
	return event.Usage{InputTokens: n}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
