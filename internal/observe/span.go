// Package observe reports every agent's life (the lead, sub-agents of every
// backend, teammates) from the run's event bus: a structured lifecycle log
// in the state directory and, when OTEL_EXPORTER_OTLP_ENDPOINT is set, an
// OpenTelemetry trace and metrics. It only reads §1 events; the run never
// waits for it.
package observe

import (
	"slices"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// Kinds of agents.
const (
	KindLead     = "lead"
	KindSubagent = "subagent"
	KindTeammate = "teammate"
)

// Span is one agent's life: what is known when it starts, and at its end
// its status, duration, tool uses and usage.
type Span struct {
	Kind       string
	SessionID  string // the run's session
	AgentID    string
	ParentID   string // "" for the lead
	Type       string // agent type: "lead", "Explore", a teammate's type
	Role       string // a teammate's role, if it was given one
	Backend    string
	Model      string
	Background bool
	Start      time.Time
	End        time.Time // zero until it ends
	// Status is the terminal status: completed, error or interrupted for
	// the lead and sub-agents; error, shutdown or interrupted for teammates.
	Status   string
	Error    string
	ToolUses int
	Usage    event.Usage
}

// Duration is End-Start (zero while the span is open).
func (s Span) Duration() time.Duration {
	if s.End.IsZero() {
		return 0
	}
	return s.End.Sub(s.Start)
}

// Failed reports whether the agent ended in error.
func (s Span) Failed() bool { return s.Status == string(lifecycle.Error) }

// Reducer is what a Tracker reads of the run's lifecycle reducer (a
// *bus.Bus): each agent's tool uses and usage (one per tool call id, the
// running total), and the lead's record.
type Reducer interface {
	ToolUses(agent string) int
	Usage(agent string) event.Usage
	Lead() (lifecycle.Record, bool)
}

// Tracker turns a run's events, in bus order, into agent spans. Time comes
// from the events (and from Close's argument). It keeps no status and
// counts nothing itself: a sub-agent's end is the reducer's record (its
// agent.status), a teammate's tool uses and usage and the lead's outcome
// are read from the Reducer when the span ends.
type Tracker struct {
	rd      Reducer
	session string
	spans   map[string]*entry // by agent id
	order   []string
	byCall  map[string]string // task tool call id → the id its sub-agent's span is kept under
	// What a session.start said of its agent, before (or without) its span.
	starts map[string]event.SessionStartData
}

type entry struct {
	span    Span
	started bool // the start was reported
	ended   bool
	// A resumed run's lead: the earlier runs' tool uses and usage, which
	// the reducer's running totals include, and when the lead last
	// completed (with how), which ends its span when the next run starts.
	baseTools int
	baseUsage event.Usage
	last      time.Time
	lastRec   lifecycle.Record
}

// NewTracker returns an empty Tracker of the run whose reducer is rd.
func NewTracker(rd Reducer) *Tracker {
	return &Tracker{rd: rd, spans: map[string]*entry{}, byCall: map[string]string{},
		starts: map[string]event.SessionStartData{}}
}

// Relevant reports whether Apply looks at events of type t; the bus
// subscriber queues only these.
func Relevant(t event.Type) bool {
	switch t {
	case event.SessionStart, event.ToolStart, event.SubagentStart, event.AgentStatus,
		event.TeammateStatus, event.UsageUpdate, event.Complete:
		return true // a lead's span opens at the first of these it emits
	}
	return false
}

// Apply takes the next event and returns the spans it started and those it
// ended (a span that starts and ends on one event is in both, started
// first).
func (t *Tracker) Apply(e event.Event) (started, ended []Span) {
	if t.session == "" && e.SessionID != "" && e.AgentID == event.LeadID {
		t.session = e.SessionID
	}
	if e.AgentID == event.LeadID && e.ParentAgentID == "" {
		started, ended = t.startLead(e, started, ended)
	}
	switch e.Type {
	case event.SessionStart:
		if d, ok := event.Payload[event.SessionStartData](e.Data); ok {
			t.starts[e.AgentID] = d
			if en := t.spans[e.AgentID]; en != nil {
				fillFromStart(&en.span, d)
			}
		}
	case event.SubagentStart:
		if d, ok := event.Payload[event.SubagentStartData](e.Data); ok && e.AgentID != "" {
			t.follow(e.ToolCallID, e.AgentID)
			en := t.entry(e.AgentID, KindSubagent, e)
			en.span.Type = lifecycle.DisplayName(d.AgentType)
			en.span.Backend = d.Backend
			en.span.Background = d.Background
			if d.Model != "" {
				en.span.Model = d.Model
			}
			started = t.markStarted(en, started)
		}
	case event.AgentStatus:
		if d, ok := event.Payload[lifecycle.StatusData](e.Data); ok {
			started, ended = t.subagentStatus(d.Agent, e, started, ended)
		}
	case event.TeammateStatus:
		if d, ok := event.Payload[event.TeammateStatusData](e.Data); ok && e.AgentID != "" {
			started, ended = t.teammateStatus(d, e, started, ended)
		}
	}
	return started, ended
}

// follow keeps the span of task call call's sub-agent under id: a record
// first named by its call id (a task call that did not name its agent)
// takes the agent's id once it has one, so one agent is one span.
func (t *Tracker) follow(call, id string) {
	if call == "" || id == "" {
		return
	}
	prev, ok := t.byCall[call]
	t.byCall[call] = id
	if !ok || prev == id {
		return
	}
	en := t.spans[prev]
	delete(t.spans, prev)
	k := slices.Index(t.order, prev)
	if _, taken := t.spans[id]; taken || en == nil {
		if k >= 0 {
			t.order = slices.Delete(t.order, k, k+1)
		}
		return
	}
	en.span.AgentID = id
	t.spans[id] = en
	if k >= 0 {
		t.order[k] = id
	}
}

// startLead opens the lead's span at its first event, and a new one at
// each later session.start of the lead: a resumed session's new run (a
// process of its own) is a span of its own, not one spanning the time
// between the runs. It returns the spans started and ended.
func (t *Tracker) startLead(e event.Event, started, ended []Span) ([]Span, []Span) {
	if en, ok := t.spans[event.LeadID]; ok {
		if e.Type != event.SessionStart || en.ended || !en.started || !t.leadSeen(en) {
			t.noteLead(en, e)
			return started, ended
		}
		ended = append(ended, t.endRun(en))
		delete(t.spans, event.LeadID)
		t.order = slices.DeleteFunc(t.order, func(id string) bool { return id == event.LeadID })
		delete(t.starts, event.LeadID)
	}
	en := t.entry(event.LeadID, KindLead, e)
	en.baseTools, en.baseUsage = t.rd.ToolUses(event.LeadID), t.rd.Usage(event.LeadID)
	en.span.Type = KindLead
	en.span.Backend = backend.Native
	if d, ok := event.Payload[event.SessionStartData](e.Data); ok && e.Type == event.SessionStart {
		fillFromStart(&en.span, d)
	}
	t.noteLead(en, e)
	return t.markStarted(en, started), ended
}

// leadSeen reports whether the lead's span has seen an event of its run
// after its start (its own session.start opens it too).
func (t *Tracker) leadSeen(en *entry) bool {
	return en.last.After(en.span.Start) || en.lastRec.ID != ""
}

// noteLead keeps the time of the lead's latest event and, at a complete,
// its record (the reducer's, as it stood after the complete).
func (t *Tracker) noteLead(en *entry, e event.Event) {
	if e.Time.After(en.last) {
		en.last = e.Time
	}
	if e.Type == event.Complete {
		if r, ok := t.rd.Lead(); ok && r.Status.Terminal() {
			en.lastRec = r
		}
	}
}

// endRun ends a lead's span at its run's last event, as its last complete
// left it (interrupted when the run never completed).
func (t *Tracker) endRun(en *entry) Span {
	st, msg := string(lifecycle.Interrupted), "the run ended before the lead completed"
	if en.lastRec.Status.Terminal() {
		st, msg = string(en.lastRec.Status), en.lastRec.Error
	}
	return t.end(en, en.last, st, msg)
}

func (t *Tracker) subagentStatus(r lifecycle.Record, e event.Event, started, ended []Span) ([]Span, []Span) {
	id := r.ID
	if id == "" {
		id = r.ToolCallID
	}
	if id == "" {
		return started, ended
	}
	t.follow(r.ToolCallID, id)
	en := t.entry(id, KindSubagent, e)
	if en.ended {
		return started, ended
	}
	s := &en.span
	s.ParentID = r.ParentID
	if r.Name != "" {
		s.Type = r.Name
	}
	if r.Backend != "" {
		s.Backend = r.Backend
	}
	if r.Model != "" {
		s.Model = r.Model
	}
	s.Background = s.Background || r.Background
	if !r.StartedAt.IsZero() {
		s.Start = r.StartedAt
	}
	if !r.Status.Terminal() {
		return started, ended
	}
	started = t.markStarted(en, started)
	s.Status, s.Error, s.ToolUses, s.Usage = string(r.Status), r.Error, r.ToolUses, r.Usage
	s.End = s.Start.Add(r.Duration)
	if r.Duration == 0 {
		s.End = e.Time
	}
	if s.Backend == "" {
		s.Backend = backend.Native
	}
	en.ended = true
	return started, append(ended, *s)
}

func (t *Tracker) teammateStatus(d event.TeammateStatusData, e event.Event, started, ended []Span) ([]Span, []Span) {
	st := lifecycle.TeammateStatus(d.Status)
	en, known := t.spans[e.AgentID]
	if known && en.ended && st == lifecycle.MateSpawning {
		delete(t.spans, e.AgentID) // a new incarnation of the same name
		known = false
	}
	if !known {
		en = t.entry(e.AgentID, KindTeammate, e)
		en.span.Type = firstNonEmpty(d.Type, d.Role, d.Name)
		en.span.Role = d.Role
		en.span.Backend = backend.Native
		if sd, ok := t.starts[e.AgentID]; ok {
			fillFromStart(&en.span, sd)
		}
		started = t.markStarted(en, started)
	}
	if en.ended || !st.Terminal() {
		return started, ended
	}
	s := &en.span
	s.Status, s.Error, s.End = d.Status, d.Error, e.Time
	s.ToolUses, s.Usage = t.rd.ToolUses(e.AgentID), t.rd.Usage(e.AgentID)
	en.ended = true
	return started, append(ended, *s)
}

// entry returns id's entry, creating it from e.
func (t *Tracker) entry(id, kind string, e event.Event) *entry {
	if en, ok := t.spans[id]; ok {
		return en
	}
	en := &entry{span: Span{Kind: kind, SessionID: firstNonEmpty(t.session, e.SessionID), AgentID: id,
		ParentID: e.ParentAgentID, Start: e.Time}}
	t.spans[id] = en
	t.order = append(t.order, id)
	return en
}

func (t *Tracker) markStarted(en *entry, started []Span) []Span {
	if en.started {
		return started
	}
	en.started = true
	return append(started, en.span)
}

// Close ends every open span at now: the lead with its record's outcome
// (that of its last complete; interrupted when it never completed), any
// other agent still active as interrupted, since the run is over. It
// returns the spans it ended, the lead last.
func (t *Tracker) Close(now time.Time) []Span {
	var out []Span
	var lead *entry
	for _, id := range t.order {
		en := t.spans[id]
		if en == nil || en.ended {
			continue
		}
		if en.span.Kind == KindLead {
			lead = en
			continue
		}
		out = append(out, t.end(en, now, string(lifecycle.Interrupted), "the run ended first"))
	}
	if lead != nil {
		st, msg := string(lifecycle.Interrupted), "the run ended before the lead completed"
		if r, ok := t.rd.Lead(); ok && r.Status.Terminal() {
			st, msg = string(r.Status), r.Error
		}
		out = append(out, t.end(lead, now, st, msg))
	}
	return out
}

func (t *Tracker) end(en *entry, now time.Time, status, msg string) Span {
	s := &en.span
	s.Status, s.Error, s.End = status, msg, now
	if s.End.Before(s.Start) {
		s.End = s.Start
	}
	s.ToolUses, s.Usage = t.rd.ToolUses(s.AgentID)-en.baseTools, sub(t.rd.Usage(s.AgentID), en.baseUsage)
	en.ended = true
	return *s
}

// sub is u less the counts of v (a run's share of a running total).
func sub(u, v event.Usage) event.Usage {
	u.InputTokens -= v.InputTokens
	u.OutputTokens -= v.OutputTokens
	u.CacheReadTokens -= v.CacheReadTokens
	u.CacheCreationTokens -= v.CacheCreationTokens
	u.CostUSD -= v.CostUSD
	return u
}

// fillFromStart sets what a session.start tells of its agent: the model,
// and the backend when the "provider" names an external CLI.
func fillFromStart(s *Span, d event.SessionStartData) {
	if d.Model != "" && s.Model == "" {
		s.Model = d.Model
	}
	if backend.External(d.Provider) {
		s.Backend = d.Provider
	}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
