package opencode

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// maxEarly bounds the events kept for a child session whose task part has
// not linked it yet.
const maxEarly = 512

// Translator turns the server's events into §1 events: the lead session
// becomes cfg.AgentID, every session a task part links becomes a sub-agent
// of the agent whose part it is. It holds no process: the Session feeds it,
// and the replay tests feed it captured streams. Safe for concurrent use;
// events are emitted in the order they arrive.
type Translator struct {
	cfg backend.Config

	mu     sync.Mutex
	lead   *agent
	agents map[string]*agent  // OpenCode session id → agent (the lead included)
	calls  map[string]*agent  // "session/callID" of a task part → its child
	counts map[string]int     // agent type → sub-agents so far
	early  map[string][]Event // events of child sessions not yet linked
	roles  map[string]string  // message id → role
	kinds  map[string]string  // part id → part type
	said   map[string]bool    // text parts already completed
	open   map[string]bool    // "session/callID" of tool calls started, not ended
	names  map[string]string  // "session/callID" → the call's tool name
}

// agent is the lead or one sub-agent, as its OpenCode session.
type agent struct {
	id, session, parent string
	par                 *agent
	oc                  string // its OpenCode session id
	call                string // the task part's callID
	kind, desc, prompt  string
	model               string
	background, done    bool
	aborted             bool
	failed              string // why its model call failed, until taken
	toolUses            int
	current             string
	usage               event.Usage
	last                string // its last completed text
}

// Note tells the Session what an event meant for the lead's turns.
type Note struct {
	// LeadBusy and LeadIdle report the lead session's status.
	LeadBusy, LeadIdle bool
	// Woke is set when a background sub-agent's completion message was
	// posted to the lead, which starts a turn by itself.
	Woke bool
}

// NewTranslator returns a translator emitting to cfg.Sink.
func NewTranslator(cfg backend.Config) *Translator {
	cfg = cfg.WithDefaults()
	return &Translator{cfg: cfg, agents: map[string]*agent{}, calls: map[string]*agent{}, counts: map[string]int{},
		early: map[string][]Event{}, roles: map[string]string{}, kinds: map[string]string{}, said: map[string]bool{},
		open: map[string]bool{}, names: map[string]string{}}
}

// SetLead makes OpenCode session id the lead's (a Reset creates a new one).
func (t *Translator) SetLead(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lead != nil {
		delete(t.agents, t.lead.oc)
	}
	t.lead = &agent{id: t.cfg.AgentID, session: t.cfg.SessionID, parent: t.cfg.ParentID, oc: id}
	t.agents[id] = t.lead
}

// Lead is the lead's OpenCode session id.
func (t *Translator) Lead() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lead == nil {
		return ""
	}
	return t.lead.oc
}

// LeadStats are the lead's token usage, tool calls and last text so far.
func (t *Translator) LeadStats() (event.Usage, int, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lead == nil {
		return event.Usage{}, 0, ""
	}
	return t.lead.usage, t.lead.toolUses, t.lead.last
}

// Running lists the OpenCode sessions of the sub-agents still at work.
func (t *Translator) Running() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, a := range t.agents {
		if a != t.lead && !a.done {
			out = append(out, a.oc)
		}
	}
	slices.Sort(out)
	return out
}

// Child is the OpenCode session of sub-agent id, if it is still at work.
func (t *Translator) Child(id string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, a := range t.agents {
		if a != t.lead && a.id == id {
			return a.oc, !a.done
		}
	}
	return "", false
}

// Interrupted ends sub-agent id as interrupted (its session was aborted).
func (t *Translator) Interrupted(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, a := range t.agents {
		if a != t.lead && a.id == id {
			t.finish(a, "interrupted", "")
			t.closeTask(a, false, "", "interrupted", true)
		}
	}
}

// EndAll ends every sub-agent still at work as interrupted: the lead was
// interrupted or the session closes, and nothing more will come.
func (t *Translator) EndAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	var kids []*agent
	for _, a := range t.agents {
		if a != t.lead && !a.done {
			kids = append(kids, a)
		}
	}
	slices.SortFunc(kids, func(a, b *agent) int { return strings.Compare(a.session, b.session) })
	for _, a := range kids {
		t.finish(a, "interrupted", "")
		t.closeTask(a, false, "", "interrupted", true)
	}
}

// TakeLeadError returns, and forgets, why the lead's last model call
// failed (OpenCode's session.error: the API refused, the endpoint is
// wrong); "" when it did not. OpenCode goes idle after such an error as
// after a finished turn, so only this tells the two apart.
func (t *Translator) TakeLeadError() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lead == nil {
		return ""
	}
	why := t.lead.failed
	t.lead.failed = ""
	return why
}

// Handle translates one event.
func (t *Translator) Handle(e Event) Note {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.handle(e)
}

func (t *Translator) handle(e Event) Note {
	var p props
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(e.Properties, &p); err != nil && !errors.As(err, &typeErr) {
		return Note{}
	}
	sid := p.SessionID
	if sid == "" && p.Part != nil {
		sid = p.Part.SessionID
	}
	if e.Type == "session.created" && p.Info.ParentID != "" {
		if _, ours := t.agents[p.Info.ParentID]; ours {
			if _, known := t.early[p.Info.ID]; !known {
				t.early[p.Info.ID] = nil // a child of ours: keep its events until its part links it
			}
		}
		return Note{}
	}
	a := t.agents[sid]
	if a == nil {
		if q, ours := t.early[sid]; ours && len(q) < maxEarly {
			t.early[sid] = append(q, e)
		}
		return Note{}
	}
	switch e.Type {
	case "session.status":
		if a == t.lead {
			return Note{LeadBusy: p.Status.Type == "busy", LeadIdle: p.Status.Type == "idle"}
		}
	case "session.idle":
		if a == t.lead {
			return Note{LeadIdle: true}
		}
	case "session.error":
		if p.Error == nil {
			break
		}
		if p.Error.Name == "MessageAbortedError" {
			a.aborted = true
			break
		}
		a.failed = cmp.Or(p.Error.Data.Message, p.Error.Name)
		t.emit(a, event.Error, "", event.ErrorData{Message: a.failed})
	case "message.updated":
		if p.Info.ID != "" && p.Info.Role != "" {
			t.roles[p.Info.ID] = p.Info.Role
		}
	case "message.part.delta":
		if p.Field == "text" && p.Delta != "" && t.kinds[p.PartID] == "text" {
			t.emit(a, event.MessageDelta, "", event.MessageDeltaData{Text: p.Delta})
		}
	case "message.part.updated":
		if p.Part != nil {
			return t.part(a, p.Part)
		}
	}
	return Note{}
}

// part translates one message part.
func (t *Translator) part(a *agent, p *part) Note {
	user := t.roles[p.MessageID] == "user"
	t.kinds[p.ID] = p.Type
	if user {
		t.kinds[p.ID] = "user-" + p.Type // its deltas are not the model's
	}
	switch p.Type {
	case "text":
		if p.Synthetic && strings.HasPrefix(p.Text, "<task ") {
			return t.woke(p.Text)
		}
		if user {
			return Note{}
		}
		if p.Time != nil && p.Time.End != 0 && !t.said[p.ID] {
			t.said[p.ID] = true
			a.last = p.Text
			t.emit(a, event.MessageComplete, "", event.MessageCompleteData{Text: p.Text})
		}
	case "tool":
		if p.State == nil {
			break
		}
		if p.Tool == "task" {
			t.task(a, p)
		} else {
			t.tool(a, p)
		}
	case "step-finish":
		if p.Tokens != nil {
			t.tokens(a, p.Tokens)
		}
	}
	return Note{}
}

// woke ends the background sub-agent a synthetic completion message names.
func (t *Translator) woke(text string) Note {
	sid, state, result := taskReport(text)
	c := t.agents[sid]
	if c == nil || c == t.lead || c.done {
		return Note{}
	}
	if c.last == "" || result != "" {
		c.last = result
	}
	t.finish(c, state, "")
	return Note{Woke: true}
}

// tool translates a part of a tool other than task.
func (t *Translator) tool(a *agent, p *part) {
	key := a.oc + "/" + p.CallID
	st := p.State
	switch st.Status {
	case "running":
		t.toolStart(a, key, p.CallID, p.Tool, st.Input)
	case "completed", "error":
		if !t.open[key] {
			if t.said[key] {
				return // a repeated update of an ended call
			}
			t.toolStart(a, key, p.CallID, p.Tool, st.Input)
		}
		delete(t.open, key)
		t.said[key] = true
		d := event.ToolCompleteData{Name: p.Tool, Success: st.Status == "completed"}
		if d.Success {
			d.Result = st.Output
		} else {
			d.Error = cmp.Or(st.Error, "tool call failed")
		}
		t.emit(a, event.ToolComplete, p.CallID, d)
		t.update(a)
	}
}

func (t *Translator) toolStart(a *agent, key, call, name string, input json.RawMessage) {
	if t.open[key] || t.said[key] {
		return
	}
	t.open[key], t.names[key] = true, name
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	a.toolUses++
	a.current = name
	t.emit(a, event.ToolStart, call, event.ToolStartData{Name: name, Input: input})
	t.update(a)
}

// task translates a task tool part: the sub-agent is created when the part
// names its child session, and ends with the part (sync) or with its
// completion message (background).
func (t *Translator) task(a *agent, p *part) {
	key := a.oc + "/" + p.CallID
	st := p.State
	c := t.calls[key]
	if c == nil {
		if st.Metadata.SessionID == "" {
			return // pending: no child session yet
		}
		c = t.newChild(a, key, p.CallID, st)
	}
	if st.Metadata.Background && !c.background {
		// Moved to the background while it ran.
		c.background = true
		t.emit(c, event.SubagentStart, c.call, t.startData(c))
	}
	switch st.Status {
	case "completed":
		_, state, result := taskReport(st.Output)
		if c.background && state != "completed" {
			t.closeTask(c, true, st.Output, "", false) // the spawn acknowledgement
			return
		}
		if c.last == "" || result != "" {
			c.last = result
		}
		t.finish(c, "completed", "")
		t.closeTask(c, true, st.Output, "", false)
	case "error":
		cancelled := c.aborted || st.Metadata.Interrupted
		status := "error"
		if cancelled {
			status = "interrupted"
		}
		t.finish(c, status, st.Error)
		t.closeTask(c, false, "", cmp.Or(st.Error, "task failed"), cancelled)
	}
}

// newChild creates the sub-agent of a task part that names its session:
// the task call starts with its reserved id, then its session, then what
// its session reported before.
func (t *Translator) newChild(parent *agent, key, call string, st *toolState) *agent {
	var in taskInput
	_ = json.Unmarshal(st.Input, &in)
	kind := strings.TrimSpace(in.SubagentType)
	if kind == "" {
		kind = lifecycle.DefaultAgentType
	}
	id := t.cfg.Name(kind, t.counts)
	c := &agent{id: id, session: t.cfg.SessionID + "/" + id, parent: parent.id, par: parent, oc: st.Metadata.SessionID,
		call: call, kind: kind, desc: in.Description, prompt: in.Prompt,
		background: in.Background || st.Metadata.Background}
	if m := st.Metadata.Model; m != nil {
		c.model = m.ModelID
	}
	t.calls[key] = c
	t.agents[c.oc] = c
	input := map[string]string{"description": c.desc, "prompt": c.prompt, "subagent_type": kind}
	if c.background {
		input["mode"] = "background"
	}
	raw, _ := json.Marshal(input)
	parent.toolUses++
	t.open[key], t.names[key] = true, "task"
	t.emit(parent, event.ToolStart, call, event.ToolStartData{Name: "task", Input: raw, SubagentID: id, SubagentSessionID: c.session})
	t.emit(c, event.SubagentStart, call, t.startData(c))
	t.emit(c, event.SessionStart, "", event.SessionStartData{Model: c.model, Provider: backend.OpenCode, Name: kind})
	q := t.early[c.oc]
	delete(t.early, c.oc)
	for _, e := range q {
		t.handle(e)
	}
	return c
}

func (t *Translator) startData(c *agent) event.SubagentStartData {
	return event.SubagentStartData{AgentType: c.kind, Description: c.desc, Prompt: c.prompt, Background: c.background,
		Model: c.model, Backend: backend.OpenCode}
}

// closeTask reports the return of c's task call once.
func (t *Translator) closeTask(c *agent, ok bool, result, errText string, cancelled bool) {
	key := c.par.oc + "/" + c.call
	if !t.open[key] {
		return
	}
	delete(t.open, key)
	d := event.ToolCompleteData{Name: "task", Success: ok, Cancelled: cancelled}
	if ok {
		d.Result = result
	} else {
		d.Error = errText
	}
	t.emit(c.par, event.ToolComplete, c.call, d)
}

// finish reports a sub-agent's end once: completed, interrupted or an
// error.
func (t *Translator) finish(c *agent, status, errText string) {
	if c.done {
		return
	}
	c.done, c.current = true, ""
	t.closeOpen(c)
	d := event.SubagentCompleteData{ToolUses: c.toolUses, Usage: c.usage, Result: c.last}
	switch {
	case status == "completed":
		d.Success = true
	case status == "interrupted" || c.aborted:
		d.Cancelled, d.Error = true, "interrupted"
	default:
		d.Error = cmp.Or(errText, "sub-agent "+status)
	}
	t.emit(c, event.SubagentComplete, c.call, d)
}

// closeOpen ends a's tool calls still open, before a's own end: OpenCode
// reports no end of a call (a running bash) in a session it aborted, and
// every call must close before its agent ends.
func (t *Translator) closeOpen(a *agent) {
	prefix := a.oc + "/"
	var keys []string
	for k := range t.open {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		delete(t.open, k)
		t.said[k] = true
		t.emit(a, event.ToolComplete, strings.TrimPrefix(k, prefix),
			event.ToolCompleteData{Name: t.names[k], Cancelled: true, Error: "interrupted: the agent ended before the call returned"})
	}
}

// update reports a sub-agent's progress (the lead has none).
func (t *Translator) update(a *agent) {
	if a == t.lead || a.done {
		return
	}
	t.emit(a, event.SubagentUpdate, a.call, event.SubagentUpdateData{CurrentTool: a.current, ToolUses: a.toolUses, Usage: a.usage})
}

// tokens adds one model step's tokens to a's usage.
func (t *Translator) tokens(a *agent, tk *tokens) {
	a.usage = a.usage.Add(event.Usage{InputTokens: tk.Input, OutputTokens: tk.Output,
		CacheReadTokens: tk.Cache.Read, CacheCreationTokens: tk.Cache.Write})
	var total event.Usage
	for _, b := range t.agents {
		total = total.Add(b.usage)
	}
	t.emit(a, event.UsageUpdate, "", event.UsageUpdateData{Usage: a.usage, Total: total})
	t.update(a)
}

func (t *Translator) emit(a *agent, typ event.Type, call string, data any) {
	t.cfg.Sink.Emit(event.Event{Type: typ, Time: t.cfg.Now(), SessionID: a.session, AgentID: a.id,
		ParentAgentID: a.parent, ToolCallID: call, Data: data})
}
