package lifecycle

import (
	"slices"
	"strconv"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// State routes events to the records they concern and keeps the records in
// creation order. The zero State is ready to use. A State is not safe for
// concurrent use: feed it from one goroutine (the event loop), as a reducer.
type State struct {
	recs    []Record
	byCall  map[string]int // task tool call id → index in recs
	byAgent map[string]int // sub-agent id → index in recs
	counts  [numStatuses]int

	mates     []Teammate
	byMate    map[string]int        // teammate name → index in mates
	byMateID  map[string]int        // teammate agent id → index in mates
	approvals map[string][]approval // agent id → approvals it waits for, oldest first
	openCount int                   // records whose session has started and not ended

	// changedMate is 1 + the index of the teammate the last Apply changed
	// (0: none).
	changedMate int

	lead    Record            // the lead's record (StepLead); not among recs
	tallies map[string]*tally // agent id → its tool uses and usage
	total   event.Usage       // every agent's usage added up

	busy map[string]int // agent id → records beneath it not terminal (nest.go)
	more []Record       // ancestors the last event changed (nest.go)
}

// approval is one permission request an agent waits on.
type approval struct{ id, what string }

// Apply applies e and returns the sub-agent records it changed (a new
// slice, in creation order), or nil when e changed nothing. It also counts
// e into its agent's tally (tool uses, usage) and steps the lead's record
// on the lead's own events; the lead's record is read with Lead, never
// returned here. Events that concern no agent cost a switch on the event
// type.
func (s *State) Apply(e event.Event) []Record {
	s.changedMate = 0
	counted := s.count(e)
	if e.AgentID == event.LeadID {
		s.applyLead(e)
	}
	changed := s.apply(e)
	if len(s.more) > 0 {
		changed = s.withMore(changed)
	}
	if !counted {
		return changed
	}
	i, ok := s.byAgent[e.AgentID]
	if !ok {
		return changed
	}
	r, ok := s.sync(i)
	if !ok {
		return changed
	}
	for k := range changed {
		if changed[k].ID == r.ID && changed[k].ToolCallID == r.ToolCallID {
			changed[k] = r
			return changed
		}
	}
	return append(changed, r)
}

// sync copies the tally of record i's agent into it and reports whether
// that changed it.
func (s *State) sync(i int) (Record, bool) {
	r := &s.recs[i]
	uses, u := s.ToolUses(r.ID), s.Usage(r.ID)
	if r.ToolUses == uses && r.Usage == u {
		return *r, false
	}
	r.ToolUses, r.Usage = uses, u
	return *r, true
}

// apply routes e to the sub-agent records it concerns.
func (s *State) apply(e event.Event) []Record {
	var (
		r  Record
		ok bool
	)
	switch e.Type {
	case event.ToolStart:
		if e.ToolCallID == "" {
			return nil
		}
		if _, dup := s.byCall[e.ToolCallID]; dup {
			return nil
		}
		r, ok = s.create(e)
	case event.SubagentStart:
		if i, found := s.lookup(e.AgentID, e.ToolCallID); found {
			r, ok = s.step(i, e)
		} else {
			r, ok = s.create(e)
		}
	case event.SubagentUpdate, event.SubagentComplete:
		if i, found := s.lookup(e.AgentID, e.ToolCallID); found {
			r, ok = s.step(i, e)
		}
	case event.ToolComplete:
		if i, found := s.byCall[e.ToolCallID]; found && s.ownsCompletion(i, e) {
			r, ok = s.step(i, e)
		}
	case event.Interrupt, event.Reset:
		var changed []Record
		keep := keepsBackground(e)
		for i := range s.recs {
			if keep && s.underBackground(i) {
				continue
			}
			if s.recs[i].Status.Active() {
				if r, ok := s.step(i, e); ok {
					changed = append(changed, r)
				}
			}
		}
		return changed
	case event.ShellStart, event.ShellOutput, event.ShellEnd:
		r, ok = s.applyShell(e)
	case event.PermissionRequested, event.PermissionResolved:
		return s.applyApproval(e)
	case event.TeammateStatus:
		s.applyTeammate(e)
		return nil
	}
	if !ok {
		return nil
	}
	return []Record{r}
}

// ownsCompletion reports whether tool.complete e is the return of record i's
// task call and not of another tool call that happens to share its id (a
// sub-agent's own call, say): the tool must be the task tool (or unnamed)
// and the caller the record's parent where both are known.
func (s *State) ownsCompletion(i int, e event.Event) bool {
	d, ok := event.Payload[event.ToolCompleteData](e.Data)
	if !ok || (d.Name != "" && !isTaskTool(d.Name)) {
		return false
	}
	parent := s.recs[i].ParentID
	return e.AgentID == "" || parent == "" || e.AgentID == parent
}

// lookup finds the record of a sub-agent id, else of a task tool call id.
func (s *State) lookup(agentID, callID string) (int, bool) {
	if agentID != "" {
		if i, ok := s.byAgent[agentID]; ok {
			return i, true
		}
	}
	if callID != "" {
		if i, ok := s.byCall[callID]; ok {
			return i, true
		}
	}
	return 0, false
}

// create makes a record from e (task tool.start or subagent.start) and
// indexes it.
func (s *State) create(e event.Event) (Record, bool) {
	r, ok := Step(Record{}, e)
	if !ok {
		return r, false
	}
	if s.byCall == nil {
		s.byCall = make(map[string]int)
		s.byAgent = make(map[string]int)
	}
	i := len(s.recs)
	s.recs = append(s.recs, r)
	s.counts[r.Status.index()]++
	if r.Session == SessionOpen {
		s.openCount++
	}
	s.index(i)
	r, _ = s.sync(i) // the agent's own events may have come first
	s.nest(Record{}, r, e.Time)
	return r, true
}

// step applies e to record i, keeping counts and indexes current.
func (s *State) step(i int, e event.Event) (Record, bool) {
	old := s.recs[i]
	r, changed := Step(old, e)
	if !changed {
		return r, false
	}
	r.Waiting = s.waiting(r)
	r.ToolUses, r.Usage = s.ToolUses(r.ID), s.Usage(r.ID)
	r = s.derive(old, r, e.Time)
	if r == old {
		return r, false
	}
	s.replace(i, old, r)
	s.nest(old, r, e.Time)
	return s.recs[i], true
}

// replace puts r in place of old, record i, keeping counts and indexes
// current.
func (s *State) replace(i int, old, r Record) {
	s.recs[i] = r
	if r.Status != old.Status {
		s.counts[old.Status.index()]--
		s.counts[r.Status.index()]++
	}
	if (r.Session == SessionOpen) != (old.Session == SessionOpen) {
		if r.Session == SessionOpen {
			s.openCount++
		} else {
			s.openCount--
		}
	}
	if j, ok := s.byAgent[old.ID]; ok && j == i && r.ID != old.ID {
		delete(s.byAgent, old.ID)
	}
	if r.ID != old.ID || r.ToolCallID != old.ToolCallID {
		s.index(i)
	}
}

// index records where record i is found: by its task call id, and by its
// sub-agent id once it has one (an id other than the call id).
func (s *State) index(i int) {
	r := &s.recs[i]
	if r.ToolCallID != "" {
		s.byCall[r.ToolCallID] = i
	}
	if r.ID != "" && r.ID != r.ToolCallID {
		s.byAgent[r.ID] = i
	}
}

// Records returns a copy of all records in creation order.
func (s *State) Records() []Record {
	return slices.Clone(s.recs)
}

// OpenChild reports whether a record parent started is not terminal, or
// is but its session (a CLI's) is still open. It reads the records in
// place: an agent asks after each of its turns, and a copy of every
// record per question made a 1,000-agent run allocate 470 MB.
func (s *State) OpenChild(parent string) bool {
	for i := range s.recs {
		r := &s.recs[i]
		if r.ParentID == parent && (!r.Status.Terminal() || r.Session == SessionOpen) {
			return true
		}
	}
	return false
}

// Len is the number of records.
func (s *State) Len() int { return len(s.recs) }

// Get returns the record with agent id id (the lead's for event.LeadID),
// or, failing that, the record spawned by task tool call id.
func (s *State) Get(id string) (Record, bool) {
	if id == event.LeadID {
		return s.Lead()
	}
	i, ok := s.lookup(id, id)
	if !ok {
		return Record{}, false
	}
	return s.recs[i], true
}

// Counts is the number of records in each status.
type Counts struct {
	Pending, Running, Background  int
	Completed, Error, Interrupted int
	Waiting                       int
}

// Active is the number of records still at work.
func (c Counts) Active() int { return c.Pending + c.Running + c.Background + c.Waiting }

// Total is the number of records.
func (c Counts) Total() int { return c.Active() + c.Completed + c.Error + c.Interrupted }

// Of returns the count of status st.
func (c Counts) Of(st Status) int {
	switch st {
	case Pending:
		return c.Pending
	case Running:
		return c.Running
	case Background:
		return c.Background
	case Completed:
		return c.Completed
	case Error:
		return c.Error
	case Interrupted:
		return c.Interrupted
	case Waiting:
		return c.Waiting
	}
	return 0
}

// Counts returns the number of records in each status.
func (s *State) Counts() Counts { return countsOf(&s.counts) }

// countsOf turns a count array into Counts.
func countsOf(c *[numStatuses]int) Counts {
	return Counts{
		Running:     c[Running.index()],
		Pending:     c[Pending.index()],
		Background:  c[Background.index()],
		Completed:   c[Completed.index()],
		Interrupted: c[Interrupted.index()],
		Error:       c[Error.index()],
		Waiting:     c[Waiting.index()],
	}
}

// Active is the number of records pending, running, background or
// waiting.
func (s *State) Active() int {
	return s.counts[Running.index()] + s.counts[Pending.index()] + s.counts[Background.index()] + s.counts[Waiting.index()]
}

// Sorted returns a copy of the records ordered for display: running,
// pending, background, completed, interrupted, error; by creation within a
// status.
func (s *State) Sorted() []Record { return sorted(s.recs) }

// sorted is a copy of recs in display order (State.Sorted).
func sorted(recs []Record) []Record {
	out := slices.Clone(recs)
	slices.SortStableFunc(out, func(a, b Record) int {
		return a.Status.index() - b.Status.index()
	})
	return out
}

// Reset forgets every record, teammate and count.
func (s *State) Reset() {
	*s = State{}
}

// Elapsed is the time r has run as of now: ticking while r is active (now
// minus StartedAt, never negative), its final Duration once terminal.
func (s *State) Elapsed(r Record, now time.Time) time.Duration { return r.Elapsed(now) }

// Elapsed is the time r has run as of now: ticking while r is active (now
// minus StartedAt, never negative), its final Duration once terminal.
func (r Record) Elapsed(now time.Time) time.Duration {
	if r.Status.Terminal() {
		return r.Duration
	}
	if r.StartedAt.IsZero() || !now.After(r.StartedAt) {
		return 0
	}
	return now.Sub(r.StartedAt)
}

// Settled reports whether the lead may emit complete (SPEC §2): no
// sub-agent is pending, running or background, no teammate is active, and
// every sub-agent session that started has reported its end (an interrupted
// agent is interrupted at once, but its subagent.complete still follows, and
// complete must be the run's last word). A nil State is settled.
func (s *State) Settled() bool {
	return s == nil || (s.Active() == 0 && s.openCount == 0 && s.ActiveTeammates() == 0)
}

// Unsettled counts what keeps the lead from completing: sub-agents active
// or with their session still closing, and active teammates.
func (s *State) Unsettled() int {
	if s == nil {
		return 0
	}
	n := s.ActiveTeammates()
	for i := range s.recs {
		if s.recs[i].Status.Active() || s.recs[i].Session == SessionOpen {
			n++
		}
	}
	return n
}

// Open counts sub-agents whose session started and has not yet reported its
// end (subagent.complete).
func (s *State) Open() int { return s.openCount }

// applyApproval tracks the approvals an agent waits for, from
// permission.requested and permission.resolved (which name the asking
// agent): its record says what it waits for until each request is answered,
// whatever progress events arrive meanwhile. It returns the sub-agent record
// it changed, if any.
func (s *State) applyApproval(e event.Event) []Record {
	if e.AgentID == "" {
		return nil
	}
	i, isRec := s.byAgent[e.AgentID]
	j, isMate := s.byMateID[e.AgentID]
	if !isRec && !isMate {
		return nil // the lead's own approvals are the UI's prompt, not a row
	}
	if isRec && s.recs[i].Status.Terminal() {
		return nil
	}
	list := s.approvals[e.AgentID]
	switch e.Type {
	case event.PermissionRequested:
		d, ok := event.Payload[event.PermissionRequestedData](e.Data)
		if !ok {
			return nil
		}
		what := d.Tool
		if d.Subject != "" {
			what += " " + strconv.Quote(d.Subject)
		}
		if s.approvals == nil {
			s.approvals = make(map[string][]approval)
		}
		s.approvals[e.AgentID] = append(list, approval{id: d.RequestID, what: what})
	case event.PermissionResolved:
		d, ok := event.Payload[event.PermissionResolvedData](e.Data)
		if !ok {
			return nil
		}
		k := slices.IndexFunc(list, func(a approval) bool { return a.id == d.RequestID })
		if k < 0 {
			return nil
		}
		list = slices.Delete(list, k, k+1)
		if len(list) == 0 {
			delete(s.approvals, e.AgentID)
		} else {
			s.approvals[e.AgentID] = list
		}
	}
	if isMate {
		if w := s.firstApproval(e.AgentID); w != s.mates[j].Waiting {
			s.mates[j].Waiting = w
			s.changedMate = j + 1
		}
		return nil
	}
	r := s.recs[i]
	w := s.waiting(r)
	if w == r.Waiting {
		return nil
	}
	r.Waiting = w
	s.recs[i] = r
	return []Record{r}
}

func (s *State) firstApproval(agentID string) string {
	if list := s.approvals[agentID]; len(list) > 0 {
		return list[0].what
	}
	return ""
}

// waiting is what r waits for: the oldest approval it asked for (from
// permission events only, so no progress update can wipe it), else a
// concurrency slot while queued, else nothing.
func (s *State) waiting(r Record) string {
	if r.Status.Terminal() {
		return ""
	}
	if w := s.firstApproval(r.ID); w != "" {
		return w
	}
	if r.Status == Pending || r.Waiting == WaitingSlot {
		return WaitingSlot
	}
	return ""
}

// applyTeammate folds a teammate.status event into the teammates.
func (s *State) applyTeammate(e event.Event) {
	d, ok := event.Payload[event.TeammateStatusData](e.Data)
	if !ok {
		return
	}
	i, found := s.byMate[d.Name]
	var old Teammate
	if found {
		old = s.mates[i]
	}
	next, changed := StepTeammate(old, found, e)
	if !changed {
		return
	}
	if !found {
		if s.byMate == nil {
			s.byMate = make(map[string]int)
			s.byMateID = make(map[string]int)
		}
		i = len(s.mates)
		s.byMate[d.Name] = i
		s.mates = append(s.mates, next)
	} else {
		s.mates[i] = next
	}
	if next.AgentID != "" {
		s.byMateID[next.AgentID] = i
	}
	s.mates[i] = s.deriveMate(s.mates[i])
	if next.Status.Terminal() {
		delete(s.approvals, next.AgentID)
	}
	s.mates[i].Waiting = s.firstApproval(next.AgentID)
	s.changedMate = i + 1
}

// ChangedTeammate is the teammate the last Apply changed (its status or
// what it waits for), if any.
func (s *State) ChangedTeammate() (Teammate, bool) {
	if s.changedMate == 0 {
		return Teammate{}, false
	}
	return s.mates[s.changedMate-1], true
}

// Teammates returns a copy of the teammates (each name's latest
// incarnation) in the order they first appeared.
func (s *State) Teammates() []Teammate { return slices.Clone(s.mates) }

// Teammate returns the teammate called name.
func (s *State) Teammate(name string) (Teammate, bool) {
	i, ok := s.byMate[name]
	if !ok {
		return Teammate{}, false
	}
	return s.mates[i], true
}

// ActiveTeammates counts teammates spawning, working, idle or waiting.
func (s *State) ActiveTeammates() int {
	n := 0
	for _, m := range s.mates {
		if m.Status.Active() {
			n++
		}
	}
	return n
}

// underBackground reports whether record i is a background agent or runs
// under one (a sync child of a background agent lives as long as it).
func (s *State) underBackground(i int) bool {
	for range len(s.recs) { // at most one step per record: a parent cycle ends it
		r := &s.recs[i]
		if r.Background {
			return true
		}
		p, ok := s.byAgent[r.ParentID]
		if r.ParentID == "" || !ok {
			return false
		}
		i = p
	}
	return false
}
