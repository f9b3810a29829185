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

	mu    sync.Mutex
	lead  *agent
	kids  *backend.Children[sub] // by child session and "session/callID" of its task part; every tool call
	early map[string][]Event     // events of child sessions not yet linked
	roles map[string]string      // message id → role
	kinds map[string]string      // part id → part type
	said  map[string]bool        // text parts already completed
	// leadUsage and leadText are the lead's tokens so far and its last
	// completed text, for Run's result.
	leadUsage event.Usage
	leadText  string
}

// agent is the lead or one sub-agent, as its OpenCode session; the lead's
// record is kept out of kids.
type agent = backend.Child[sub]

// sub is what the translator keeps of an agent besides its record.
type sub struct {
	par          *agent // the agent whose task part started it (nil: the lead)
	oc           string // its OpenCode session id
	desc, prompt string
	model        string
	background   bool
	aborted      bool
	failed       string // why its model call failed, until taken
	current      string
	last         string // its last completed text
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
	return &Translator{cfg: cfg, kids: backend.NewChildren[sub](cfg),
		early: map[string][]Event{}, roles: map[string]string{}, kinds: map[string]string{}, said: map[string]bool{}}
}

// SetLead makes OpenCode session id the lead's (a Reset creates a new one).
func (t *Translator) SetLead(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lead = &agent{ID: t.cfg.AgentID, SessionID: t.cfg.SessionID, Parent: t.cfg.ParentID, X: sub{oc: id}}
}

// Lead is the lead's OpenCode session id.
func (t *Translator) Lead() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lead == nil {
		return ""
	}
	return t.lead.X.oc
}

// LeadStats are the lead's token usage and last text so far.
func (t *Translator) LeadStats() (event.Usage, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.leadUsage, t.leadText
}

// of is the agent whose OpenCode session is sid: the lead or a linked
// sub-agent; nil when none is.
func (t *Translator) of(sid string) *agent {
	if t.lead != nil && sid == t.lead.X.oc {
		return t.lead
	}
	return t.kids.Of(sid)
}

// Running lists the OpenCode sessions of the sub-agents still at work.
func (t *Translator) Running() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, a := range t.kids.Open() {
		out = append(out, a.X.oc)
	}
	slices.Sort(out)
	return out
}

// Child is the OpenCode session of sub-agent id, if it is still at work.
func (t *Translator) Child(id string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a := t.kids.Get(id); a != nil {
		return a.X.oc, !a.Done
	}
	return "", false
}

// Interrupted ends sub-agent id as interrupted (its session was aborted).
func (t *Translator) Interrupted(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a := t.kids.Get(id); a != nil {
		t.finish(a, "interrupted", "")
		t.closeTask(a, false, "", "interrupted", true)
	}
}

// EndAll ends every sub-agent still at work as interrupted: the lead was
// interrupted or the session closes, and nothing more will come.
func (t *Translator) EndAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	kids := t.kids.Open()
	slices.SortFunc(kids, func(a, b *agent) int { return strings.Compare(a.SessionID, b.SessionID) })
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
	why := t.lead.X.failed
	t.lead.X.failed = ""
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
		if t.of(p.Info.ParentID) != nil {
			if _, known := t.early[p.Info.ID]; !known {
				t.early[p.Info.ID] = nil // a child of ours: keep its events until its part links it
			}
		}
		return Note{}
	}
	a := t.of(sid)
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
			a.X.aborted = true
			break
		}
		a.X.failed = cmp.Or(p.Error.Data.Message, p.Error.Name)
		t.emit(a, event.Error, "", event.ErrorData{Message: a.X.failed})
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
			a.X.last = p.Text
			if a == t.lead {
				t.leadText = p.Text
			}
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
	c := t.kids.Of(sid)
	if c == nil || c.Done {
		return Note{}
	}
	if c.X.last == "" || result != "" {
		c.X.last = result
	}
	t.finish(c, state, "")
	return Note{Woke: true}
}

// tool translates a part of a tool other than task.
func (t *Translator) tool(a *agent, p *part) {
	st := p.State
	switch st.Status {
	case "running":
		t.toolStart(a, p.CallID, p.Tool, st.Input)
	case "completed", "error":
		t.toolStart(a, p.CallID, p.Tool, st.Input) // a call reported only when it ended
		if _, open := t.kids.EndCall(a.ID, p.CallID); !open {
			return // a repeated update of an ended call
		}
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

func (t *Translator) toolStart(a *agent, call, name string, input json.RawMessage) {
	if !t.kids.StartCall(a.ID, call, name) {
		return
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	a.X.current = name
	t.emit(a, event.ToolStart, call, event.ToolStartData{Name: name, Input: input})
	t.update(a)
}

// task translates a task tool part: the sub-agent is created when the part
// names its child session, and ends with the part (sync) or with its
// completion message (background).
func (t *Translator) task(a *agent, p *part) {
	st := p.State
	c := t.kids.Of(a.X.oc + "/" + p.CallID)
	if c == nil {
		if st.Metadata.SessionID == "" {
			return // pending: no child session yet
		}
		c = t.newChild(a, p.CallID, st)
	}
	if st.Metadata.Background && !c.X.background {
		// Moved to the background while it ran.
		c.X.background = true
		t.emit(c, event.SubagentStart, c.Call, t.startData(c))
	}
	switch st.Status {
	case "completed":
		_, state, result := taskReport(st.Output)
		if c.X.background && state != "completed" {
			t.closeTask(c, true, st.Output, "", false) // the spawn acknowledgement
			return
		}
		if c.X.last == "" || result != "" {
			c.X.last = result
		}
		t.finish(c, "completed", "")
		t.closeTask(c, true, st.Output, "", false)
	case "error":
		cancelled := c.X.aborted || st.Metadata.Interrupted
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
func (t *Translator) newChild(parent *agent, call string, st *toolState) *agent {
	in, _ := event.ParseTaskInput(st.Input)
	c := t.kids.New(in.Type(), parent.ID, "")
	c.Call = call
	c.X = sub{par: parent, oc: st.Metadata.SessionID, desc: in.Description, prompt: in.Prompt,
		background: in.Background || st.Metadata.Background}
	if m := st.Metadata.Model; m != nil {
		c.X.model = m.ModelID
	}
	// Its part's call finds it (call ids are the model's, unique only in
	// their session), and its session's id reads as ours.
	t.kids.Alias(parent.X.oc+"/"+call, c)
	t.kids.Bind(c.X.oc, c.ID)
	raw := event.TaskCall(event.TaskInput{Description: c.X.desc, Prompt: c.X.prompt, SubagentType: c.Type, Background: c.X.background})
	t.kids.StartCall(parent.ID, call, "task")
	t.emit(parent, event.ToolStart, call, event.ToolStartData{Name: "task", Input: raw, SubagentID: c.ID, SubagentSessionID: c.SessionID})
	t.emit(c, event.SubagentStart, call, t.startData(c))
	t.emit(c, event.SessionStart, "", event.SessionStartData{Model: c.X.model, Provider: backend.OpenCode, Name: c.Type})
	q := t.early[c.X.oc]
	delete(t.early, c.X.oc)
	for _, e := range q {
		t.handle(e)
	}
	return c
}

func (t *Translator) startData(c *agent) event.SubagentStartData {
	return event.SubagentStartData{AgentType: c.Type, Description: c.X.desc, Prompt: c.X.prompt, Background: c.X.background,
		Model: c.X.model, Backend: backend.OpenCode}
}

// closeTask reports the return of c's task call once.
func (t *Translator) closeTask(c *agent, ok bool, result, errText string, cancelled bool) {
	if _, open := t.kids.EndCall(c.X.par.ID, c.Call); !open {
		return
	}
	d := event.ToolCompleteData{Name: "task", Success: ok, Cancelled: cancelled}
	if ok {
		d.Result = result
	} else {
		d.Error = errText
	}
	t.emit(c.X.par, event.ToolComplete, c.Call, d)
}

// finish reports a sub-agent's end once: completed, interrupted or an
// error. Its tool calls still open end first: OpenCode reports no end of a
// call (a running bash) in a session it aborted, and every call must close
// before its agent ends.
func (t *Translator) finish(c *agent, status, errText string) {
	if c.Done {
		return
	}
	c.Done, c.X.current = true, ""
	for _, k := range t.kids.CloseCalls(c.ID) {
		t.emit(c, event.ToolComplete, k.ID,
			event.ToolCompleteData{Name: k.Name, Cancelled: true, Error: "interrupted: the agent ended before the call returned"})
	}
	d := event.SubagentCompleteData{Result: c.X.last}
	switch {
	case status == "completed":
		d.Success = true
	case status == "interrupted" || c.X.aborted:
		d.Cancelled, d.Error = true, "interrupted"
	default:
		d.Error = cmp.Or(errText, "sub-agent "+status)
	}
	t.emit(c, event.SubagentComplete, c.Call, d)
}

// update reports a sub-agent's progress (the lead has none); the reducer
// fills in its counts.
func (t *Translator) update(a *agent) {
	if a == t.lead || a.Done {
		return
	}
	t.emit(a, event.SubagentUpdate, a.Call, event.SubagentUpdateData{CurrentTool: a.X.current})
}

// tokens reports one model step's tokens of a (a delta the reducer adds).
func (t *Translator) tokens(a *agent, tk *tokens) {
	u := event.Usage{InputTokens: tk.Input, OutputTokens: tk.Output,
		CacheReadTokens: tk.Cache.Read, CacheCreationTokens: tk.Cache.Write}
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
