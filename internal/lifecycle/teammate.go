package lifecycle

import (
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Teammate is one teammate as the reducer sees it.
type Teammate struct {
	Name      string         `json:"name"`
	Role      string         `json:"role,omitempty"`
	AgentID   string         `json:"agent_id"`
	SessionID string         `json:"session_id,omitempty"`
	Status    TeammateStatus `json:"status"`
	Error     string         `json:"error,omitempty"`
	// Started is the time of the incarnation's first event; Ended that of
	// its terminal status (zero while active).
	Started time.Time `json:"started_at,omitzero"`
	Ended   time.Time `json:"ended_at,omitzero"`
	// Waiting names the approval the teammate waits for, if any.
	Waiting string `json:"waiting,omitempty"`
}

// TeammateEvent builds the teammate.record event reporting m, changed by
// cause: the whole teammate, for views that render the reducer's state
// instead of keeping a copy of it.
func TeammateEvent(cause event.Event, m Teammate) event.Event {
	sid := m.SessionID
	if sid == "" {
		sid = cause.SessionID
	}
	return event.Event{Type: event.TeammateRecord, Time: cause.Time, SessionID: sid,
		AgentID: m.AgentID, ParentAgentID: event.LeadID, Data: m}
}

// TeammateOf is the teammate a teammate.record event carries.
func TeammateOf(e event.Event) (Teammate, bool) {
	if e.Type != event.TeammateRecord {
		return Teammate{}, false
	}
	return event.Payload[Teammate](e.Data)
}

// StepTeammate is the pure transition of one teammate on a teammate.status
// event e; found says whether the teammate was known (old holds it). It
// returns the new teammate and whether anything changed:
//   - any status on an unknown name starts a member (a stream joined
//     mid-way still shows it), and spawning on a terminal member starts a
//     new incarnation in the old one's place;
//   - spawning on a member that is already active changes nothing;
//   - a terminal member never changes otherwise: late working, idle or a
//     second terminal status are ignored, so a teammate is counted down
//     exactly once;
//   - unknown statuses and events without a name are ignored.
func StepTeammate(old Teammate, found bool, e event.Event) (Teammate, bool) {
	d, ok := event.Payload[event.TeammateStatusData](e.Data)
	if e.Type != event.TeammateStatus || !ok || d.Name == "" {
		return old, false
	}
	st := TeammateStatus(d.Status)
	if !st.Valid() {
		return old, false
	}
	fresh := Teammate{Name: d.Name, Role: d.Role, AgentID: e.AgentID, SessionID: e.SessionID, Status: st, Error: d.Error, Started: e.Time}
	if !found {
		if st.Terminal() {
			fresh.Ended = e.Time
		}
		return fresh, true
	}
	next := old
	switch {
	case old.Status.Terminal() && st == MateSpawning:
		next = fresh
	case old.Status.Terminal(), st == MateSpawning:
		return old, false
	default:
		next.Status = st
		if d.Role != "" {
			next.Role = d.Role
		}
		if e.AgentID != "" {
			next.AgentID = e.AgentID
		}
		if e.SessionID != "" {
			next.SessionID = e.SessionID
		}
		if st.Terminal() {
			next.Error, next.Ended, next.Waiting = d.Error, e.Time, ""
		}
	}
	return next, next != old
}
