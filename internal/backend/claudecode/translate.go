package claudecode

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
)

// Backend is the name subagent.start gives the CLI's sub-agents.
const Backend = "claude-code"

// translator turns the CLI's stdout lines into SPEC §1 events. It holds no
// process and does no I/O beyond its sink, so a captured stream can be
// replayed through it. It is not safe for concurrent use: one reader feeds
// it.
type translator struct {
	cfg  backend.Config
	kids *backend.Children[sub] // the sub-agents, by tool_use and task id, and every tool call

	started bool
	model   string
	// cliSession is the CLI's id of the lead's conversation (system/init),
	// told to cfg.OnCLISession when it is new.
	cliSession string

	// toolTasks are the tasks that are tool calls, not sub-agents (a long
	// Bash), by task id: whether each runs in the background.
	toolTasks map[string]bool

	// leadText is the lead's streamed text not yet confirmed by its
	// assistant line; a sub-agent's is on its agent.
	leadText streamed
	// cost is the CLI's total_cost_usd so far: cumulative over the
	// session, sub-agents included, and carried by the lead.
	cost float64
	// l is the line being translated, kept so that each line does not
	// allocate one.
	l line
	// tasks maps our agent id to the CLI's task_id; CancelAgent reads it
	// from other goroutines.
	tasks sync.Map
}

// agent is one of the CLI's sub-agents under the id we gave it (nil: the
// lead).
type agent = backend.Child[sub]

// sub is what the translator keeps of a sub-agent besides its record.
type sub struct {
	background, started bool
	currentTool         string
	text                streamed
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
	return &a.X.text
}

// newTranslator returns a translator of lead's session sessionID emitting
// to sink (the replay tests').
func newTranslator(sessionID, lead string, sink event.Sink, now func() time.Time) *translator {
	return newTranslatorFor(backend.Config{SessionID: sessionID, AgentID: lead, Sink: sink, Now: now})
}

// newTranslatorFor returns the translator of cfg's session.
func newTranslatorFor(cfg backend.Config) *translator {
	cfg = cfg.WithDefaults()
	return &translator{cfg: cfg, kids: backend.NewChildren[sub](cfg), toolTasks: map[string]bool{}}
}

// agentID is a's id (the lead's for nil).
func (t *translator) agentID(a *agent) string {
	if a == nil {
		return t.cfg.AgentID
	}
	return a.ID
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
			return step{ask: &approval{requestID: l.RequestID, req: req, agent: t.kids.Of(req.AgentID)}}, nil
		}
	case "control_cancel_request":
		return step{cancel: l.RequestID}, nil
	}
	return step{}, nil
}

func (t *translator) emit(typ event.Type, a *agent, callID string, data any) {
	e := event.Event{Type: typ, Time: t.cfg.Now(), SessionID: t.cfg.SessionID, AgentID: t.cfg.AgentID, ParentAgentID: t.cfg.ParentID,
		ToolCallID: callID, Data: t.kids.RewriteData(data)}
	if a != nil {
		e.SessionID, e.AgentID, e.ParentAgentID = a.SessionID, a.ID, a.Parent
	}
	t.cfg.Sink.Emit(e)
}

func (t *translator) system(l *line) step {
	switch l.Subtype {
	case "init":
		if l.Model != "" {
			t.model = l.Model
		}
		if l.SessionID != "" && l.SessionID != t.cliSession && l.ParentToolUseID == "" {
			t.cliSession = l.SessionID
			if t.cfg.OnCLISession != nil {
				t.cfg.OnCLISession(l.SessionID)
			}
		}
		if !t.started {
			t.started = true
			t.emit(event.SessionStart, nil, "", event.SessionStartData{
				Model: l.Model, Provider: Backend, Tools: ourToolNames(l.Tools), Name: t.cfg.AgentID})
		}
		return step{leadBegan: true}
	case "status":
		return step{leadAsks: l.Status == "requesting"}
	case "task_started":
		a := t.kids.Of(l.ToolUseID)
		if a == nil && (l.TaskType != "" && l.TaskType != "local_agent" || t.kids.HasCall(l.ToolUseID)) {
			if l.TaskID != "" {
				t.toolTasks[l.TaskID] = l.IsBackgrounded
			}
			return step{}
		}
		if a == nil { // a task not announced by a tool_use we saw
			a = t.name(l.SubagentType, t.cfg.AgentID, l.ToolUseID, l.IsBackgrounded)
		}
		if a.X.started {
			return step{}
		}
		a.X.started = true
		a.X.background = a.X.background || l.IsBackgrounded
		if l.TaskID != "" {
			t.kids.Bind(l.TaskID, a.ID)
			t.tasks.Store(a.ID, l.TaskID)
		}
		t.emit(event.SubagentStart, a, a.Call, event.SubagentStartData{
			AgentType: agentType(l.SubagentType), Description: l.Description, Prompt: l.Prompt,
			Background: a.X.background, Model: t.model, Backend: Backend})
		t.emit(event.SessionStart, a, "", event.SessionStartData{Model: t.model, Provider: Backend, Name: agentType(l.SubagentType)})
	case "task_progress":
		a := t.task(l)
		if a == nil || a.Done {
			return step{}
		}
		t.usage(a, l.Usage.taskUsage)
		if l.LastToolName != "" {
			a.X.currentTool = ourToolName(l.LastToolName)
		}
		t.update(a)
	case "task_updated":
		if a := t.task(l); a != nil && !a.Done {
			if l.Patch != nil && l.Patch.Status != "" && l.Patch.Status != "running" {
				a.X.currentTool = "" // it stopped working; its notification follows
			}
			t.update(a)
		}
	case "task_notification":
		if bg, ok := t.toolTasks[l.TaskID]; ok {
			delete(t.toolTasks, l.TaskID)
			return step{bgDone: bg}
		}
		a := t.task(l)
		if a == nil || a.Done {
			return step{}
		}
		t.usage(a, l.Usage.taskUsage)
		var d event.SubagentCompleteData
		switch l.Status {
		case "completed":
			d.Success, d.Result = true, l.Summary
		case "stopped", "killed":
			d.Cancelled, d.Error = true, "cancelled: the agent was stopped"
		default:
			d.Error = firstNonEmpty(l.Summary, "sub-agent "+firstNonEmpty(l.Status, "failed"))
		}
		t.finish(a, d)
		return step{bgDone: a.X.background}
	}
	return step{}
}

// usage reports a sub-agent's tokens, which the CLI gives only as a
// running total (counted as input, where most of an agent's tokens are).
func (t *translator) usage(a *agent, u taskUsage) {
	if u.TotalTokens > 0 {
		t.emit(event.UsageUpdate, a, "", event.UsageUpdateData{Usage: event.Usage{InputTokens: u.TotalTokens}})
	}
}

// task finds the sub-agent a task_* line is about.
func (t *translator) task(l *line) *agent {
	if a := t.kids.Of(l.TaskID); a != nil {
		return a
	}
	return t.kids.Of(l.ToolUseID)
}

// update reports a's progress; the reducer fills in its counts.
func (t *translator) update(a *agent) {
	t.emit(event.SubagentUpdate, a, a.Call, event.SubagentUpdateData{CurrentTool: a.X.currentTool})
}

// owner is the agent whose message l is: the sub-agent whose Agent call
// is its parent_tool_use_id, else the lead (nil).
func (t *translator) owner(l *line) *agent {
	return t.kids.Of(l.ParentToolUseID)
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
	name := ourToolName(b.Name)
	if isAgentTool(b.Name) {
		name = "task"
	}
	if !t.kids.StartCall(t.agentID(a), b.ID, name) {
		return
	}
	if a != nil {
		a.X.currentTool = ourToolName(b.Name)
		if s := subject(b.Name, b.Input); s != "" {
			a.X.currentTool += " " + s
		}
	}
	if name != "task" {
		t.emit(event.ToolStart, a, b.ID, event.ToolStartData{Name: name, Input: b.Input})
		if todos, ok := todoList(b.Input); ok && b.Name == "TodoWrite" {
			// The CLI's plan, announced as our todo_write's is.
			t.emit(event.PlanUpdate, a, b.ID, event.PlanUpdateData{Todos: todos})
		}
	} else {
		in, _ := event.ParseTaskInput(b.Input) // a bad input still gets its record; the CLI reports the error
		sub := t.name(in.SubagentType, t.agentID(a), b.ID, in.Background)
		// The task tool's input as the native tool takes it.
		task := event.TaskInput{Description: in.Description, Model: in.Model, Prompt: in.Prompt,
			SubagentType: in.SubagentType, Background: in.Background}
		t.emit(event.ToolStart, a, b.ID, event.ToolStartData{Name: "task", Input: event.TaskCall(task),
			SubagentID: sub.ID, SubagentSessionID: sub.SessionID})
	}
	if a != nil && !a.Done {
		t.update(a)
	}
}

// name reserves our id for the sub-agent an Agent call starts:
// <type>-<n>, counted per type, as the native manager names them.
func (t *translator) name(typ, parent, callID string, background bool) *agent {
	a := t.kids.New(strings.ToLower(agentType(typ)), parent, callID)
	a.X.background = background
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
		name, ok := t.kids.EndCall(t.agentID(a), b.ToolUseID)
		if !ok {
			continue
		}
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
		if sub := t.kids.Of(b.ToolUseID); sub != nil {
			return "launched in the background as " + sub.ID + "; its result arrives when it finishes"
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
	// The lead's usage.update is the turn's (a delta the reducer adds).
	// (modelUsage, cumulative over the CLI's session, splits the same
	// tokens otherwise and counts a sub-agent before its end.)
	// total_cost_usd is cumulative over the session, sub-agents included:
	// the lead carries it, so that the run counts it once.
	delta := turn
	if l.TotalCostUSD > t.cost {
		delta.CostUSD = l.TotalCostUSD - t.cost
		t.cost = l.TotalCostUSD
	}
	for _, m := range l.ModelUsage {
		delta.ContextWindow = max(delta.ContextWindow, m.ContextWindow)
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
	t.emit(event.UsageUpdate, nil, "", event.UsageUpdateData{Usage: delta, Delta: true})
	return &turnResult{Text: l.Result, StopReason: l.StopReason, IsError: l.IsError, Errors: l.Errors,
		NumTurns: l.NumTurns, Usage: turn}
}

// finish ends sub-agent a with d, once: its tool calls still open first
// (the CLI sends the result of a call its stopped agent was running, a
// Bash, after the agent's notification, or never; the late result is
// dropped).
func (t *translator) finish(a *agent, d event.SubagentCompleteData) {
	if a.Done {
		return
	}
	a.Done = true
	for _, c := range t.kids.CloseCalls(a.ID) {
		t.emit(event.ToolComplete, a, c.ID, event.ToolCompleteData{Name: c.Name, Cancelled: true,
			Error: "interrupted: the agent ended before the call returned"})
	}
	t.emit(event.SubagentComplete, a, a.Call, d)
}

// endOpen reports every sub-agent still open as ended (the process went
// away): cancelled when the session closed it, an error when it died.
func (t *translator) endOpen(cancel bool, why string) {
	for _, a := range t.kids.Open() {
		t.finish(a, event.SubagentCompleteData{Error: why, Cancelled: cancel})
	}
}

func isAgentTool(name string) bool { return name == "Agent" || name == "Task" }

func agentType(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return event.DefaultAgentType
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
