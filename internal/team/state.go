// Package team runs agent teams: long-lived, named teammate sessions that
// the lead (and each other) can message while they work, and that end only
// when asked to or when they fail. The Manager runs the teammates; the pure
// State reducer derives who is active from teammate.status events, and that
// count gates the lead's complete (SPEC §2): it is never a hand-kept counter.
package team

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Member is one teammate as the reducer sees it.
type Member struct {
	Name    string
	Role    string
	AgentID string
	Status  Status
	Error   string
	// Started is the time of the incarnation's first event; Ended that of
	// its terminal status (zero while active).
	Started time.Time
	Ended   time.Time
}

// State folds teammate.status events into members, in the order they first
// appeared. The zero State is ready to use. It does no I/O and reads no
// clock; it is not safe for concurrent use (feed it from one goroutine or
// under a lock).
type State struct {
	members []Member
	byName  map[string]int
}

// Apply applies e and reports whether it changed the state. Only
// teammate.status events matter; among them:
//   - any status on an unknown name starts a member (a stream joined
//     mid-way still shows it), and spawning on a terminal member starts a
//     new incarnation in the old one's place;
//   - spawning on a member that is already active changes nothing;
//   - a terminal member never changes otherwise: late working, idle or a
//     second terminal status are ignored, so a teammate is counted down
//     exactly once;
//   - unknown statuses and events without a name are ignored.
func (s *State) Apply(e event.Event) bool {
	if e.Type != event.TeammateStatus {
		return false
	}
	d, ok := statusData(e.Data)
	if !ok || d.Name == "" {
		return false
	}
	st := Status(d.Status)
	if !st.valid() {
		return false
	}
	i, found := s.byName[d.Name]
	if !found {
		m := Member{Name: d.Name, Role: d.Role, AgentID: e.AgentID, Status: st, Error: d.Error, Started: e.Time}
		if st.Terminal() {
			m.Ended = e.Time
		}
		if s.byName == nil {
			s.byName = make(map[string]int)
		}
		s.byName[d.Name] = len(s.members)
		s.members = append(s.members, m)
		return true
	}
	old := s.members[i]
	next := old
	switch {
	case old.Status.Terminal() && st == Spawning:
		next = Member{Name: d.Name, Role: d.Role, AgentID: e.AgentID, Status: Spawning, Started: e.Time}
	case old.Status.Terminal(), st == Spawning:
		return false
	default:
		next.Status = st
		if d.Role != "" {
			next.Role = d.Role
		}
		if e.AgentID != "" {
			next.AgentID = e.AgentID
		}
		if st.Terminal() {
			next.Error, next.Ended = d.Error, e.Time
		}
	}
	if next == old {
		return false
	}
	s.members[i] = next
	return true
}

// Active counts teammates spawning, working or idle.
func (s *State) Active() int {
	n := 0
	for _, m := range s.members {
		if m.Status.Active() {
			n++
		}
	}
	return n
}

// Members returns a copy of the members in order of first appearance.
func (s *State) Members() []Member { return slices.Clone(s.members) }

// Get returns the member called name.
func (s *State) Get(name string) (Member, bool) {
	i, ok := s.byName[name]
	if !ok {
		return Member{}, false
	}
	return s.members[i], true
}

// statusData reads a teammate.status payload: the struct, a pointer to it,
// or raw JSON (a decoded event stream).
func statusData(data any) (event.TeammateStatusData, bool) {
	switch v := data.(type) {
	case event.TeammateStatusData:
		return v, true
	case *event.TeammateStatusData:
		if v != nil {
			return *v, true
		}
	case json.RawMessage:
		var d event.TeammateStatusData
		if json.Unmarshal(v, &d) == nil {
			return d, true
		}
	}
	return event.TeammateStatusData{}, false
}
