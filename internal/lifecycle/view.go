package lifecycle

import (
	"slices"

	"github.com/atomic-agent/atomic/internal/event"
)

// View is what a view keeps of the reducer: the latest record of each
// sub-agent, as agent.status events hand them over, in the order they first
// came. It has no transition of its own: Put takes the record an
// agent.status carries as it is, so every status a view shows is the
// reducer's (State's). The zero View is ready to use; it is not safe for
// concurrent use.
type View struct {
	recs   []Record
	byCall map[string]int // task tool call id → index in recs
	byID   map[string]int // agent id → index in recs
	counts [numStatuses]int
}

// RecordOf returns the record an agent.status event carries.
func RecordOf(e event.Event) (Record, bool) {
	if e.Type != event.AgentStatus {
		return Record{}, false
	}
	d, ok := event.Payload[StatusData](e.Data)
	if !ok || d.Agent.ID == "" && d.Agent.ToolCallID == "" {
		return Record{}, false
	}
	return d.Agent, true
}

// Put stores r in place of the record of the same agent (found by its task
// call id, else its agent id) and returns the record it replaced, if any.
func (v *View) Put(r Record) (old Record, found bool) {
	i, found := v.find(r)
	if !found {
		if v.byCall == nil {
			v.byCall, v.byID = map[string]int{}, map[string]int{}
		}
		i = len(v.recs)
		v.recs = append(v.recs, r)
	} else {
		old = v.recs[i]
		v.counts[old.Status.index()]--
		v.recs[i] = r
	}
	v.counts[r.Status.index()]++
	if r.ToolCallID != "" {
		v.byCall[r.ToolCallID] = i
	}
	if r.ID != "" {
		v.byID[r.ID] = i
	}
	return old, found
}

func (v *View) find(r Record) (int, bool) {
	if i, ok := v.byCall[r.ToolCallID]; ok && r.ToolCallID != "" {
		return i, true
	}
	i, ok := v.byID[r.ID]
	return i, ok && r.ID != ""
}

// Get returns the record of agent id, or of task tool call id.
func (v *View) Get(id string) (Record, bool) {
	if i, ok := v.byID[id]; ok {
		return v.recs[i], true
	}
	if i, ok := v.byCall[id]; ok {
		return v.recs[i], true
	}
	return Record{}, false
}

// Len is the number of records.
func (v *View) Len() int { return len(v.recs) }

// Records returns a copy of the records in the order they first came.
func (v *View) Records() []Record { return slices.Clone(v.recs) }

// Sorted returns a copy of the records ordered for display (State.Sorted).
func (v *View) Sorted() []Record { return sorted(v.recs) }

// Counts returns the number of records in each status.
func (v *View) Counts() Counts { return countsOf(&v.counts) }

// Active is the number of records pending, running or background.
func (v *View) Active() int { return v.Counts().Active() }

// Header is the agents tree's header text of the records (State.Header).
func (v *View) Header() string { return header(v.recs, v.Counts()) }
