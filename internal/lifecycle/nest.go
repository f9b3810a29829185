package lifecycle

import (
	"slices"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Nesting (SPEC §2, depth and shells): a record whose ParentID names
// another record is part of that record's work. The reducer counts, for
// every id, the records beneath it that are not terminal (any kind: agents,
// shells), and derives from that count:
//   - an agent whose turn ended (TurnEnded) while any of them runs is
//     Waiting, and goes back to its working status when the count falls
//     to zero or it is woken;
//   - an agent that reports success while any of them runs is not
//     completed: it is Waiting with Held completed, and completes when
//     the last of them ends.
// So no record is ever completed while a descendant is not terminal,
// whatever order the events arrive in.

// live reports whether r counts as work under way for its ancestors.
func live(r Record) int {
	if r.ID == "" || r.Status.Terminal() {
		return 0
	}
	return 1
}

// Busy is the number of records beneath agent id (at any depth) that are
// not terminal.
func (s *State) Busy(id string) int { return s.busy[id] }

// derive is r with the status its descendants give it, at time t.
func (s *State) derive(old, r Record, t time.Time) Record {
	if r.Status.Terminal() {
		if r.Status == Completed && !old.Status.Terminal() && s.busy[r.ID] > 0 {
			// Its own work still runs: the completion waits for it.
			r.Status, r.Held, r.Duration = Waiting, Completed, 0
		}
		return r
	}
	busy := s.busy[r.ID] > 0
	switch {
	case r.Held != "" && !busy:
		return finish(r, r.Held, t)
	case r.Held != "" || r.TurnEnded && busy:
		r.Status = Waiting
	case r.Status == Waiting:
		r.Status = Running
		if r.Background {
			r.Status = Background
		}
	}
	return r
}

// nest moves what old counted for its ancestors to what r counts (r
// replaced old at index i): a record that started or ended, or that
// learnt its parent, changes its ancestors' counts and so perhaps their
// status. The records that changed are added to s.more.
func (s *State) nest(old, r Record, t time.Time) {
	if old.ParentID == r.ParentID && old.ID == r.ID {
		s.propagate(r.ParentID, live(r)-live(old), t)
		return
	}
	if old.ID != "" {
		s.propagate(old.ParentID, -live(old)-s.busy[old.ID], t)
	}
	s.propagate(r.ParentID, live(r)+s.busy[r.ID], t)
}

// propagate adds d to the count of parent and of each of its ancestors,
// re-deriving each one's status on the way: an ancestor that completes
// because of it stops counting for those above it too.
func (s *State) propagate(parent string, d int, t time.Time) {
	for n := 0; parent != "" && d != 0 && n <= len(s.recs); n++ {
		if s.busy == nil {
			s.busy = make(map[string]int)
		}
		s.busy[parent] += d
		if s.busy[parent] == 0 {
			delete(s.busy, parent)
		}
		i, ok := s.byAgent[parent]
		if !ok {
			s.propagateMate(parent)
			return // not seen yet (or the lead, a teammate): its record takes the count when it comes
		}
		old := s.recs[i]
		r := s.derive(old, old, t)
		if r != old {
			s.replace(i, old, r)
			s.more = append(s.more, r)
			d += live(r) - live(old)
		}
		parent = r.ParentID
	}
}

// propagateMate re-derives the teammate whose agent id is id, if there is
// one, after its count changed.
func (s *State) propagateMate(id string) {
	j, ok := s.byMateID[id]
	if !ok {
		return
	}
	if m := s.deriveMate(s.mates[j]); m != s.mates[j] {
		s.mates[j] = m
		s.changedMate = j + 1
	}
}

// deriveMate is m with the status its descendants give it: an idle
// teammate whose agents or shells still run is waiting (their results
// wake it), and idle again when the last of them ends.
func (s *State) deriveMate(m Teammate) Teammate {
	busy := s.busy[m.AgentID] > 0
	switch {
	case m.Status == MateIdle && busy:
		m.Status = MateWaiting
	case m.Status == MateWaiting && !busy:
		m.Status = MateIdle
	}
	return m
}

// withMore adds to changed the ancestors the event changed (s.more), each
// once and as it is now, and empties s.more.
func (s *State) withMore(changed []Record) []Record {
	for _, r := range s.more {
		found := false
		for k := range changed {
			if changed[k].ID == r.ID && changed[k].ToolCallID == r.ToolCallID {
				changed[k], found = r, true
				break
			}
		}
		if !found {
			changed = append(changed, r)
		}
	}
	s.more = s.more[:0]
	// An ancestor changed after a record it precedes in changed was
	// copied: every copy is the record as it is now.
	for k := range changed {
		if i, ok := s.lookup(changed[k].ID, changed[k].ToolCallID); ok {
			changed[k] = s.recs[i]
		}
	}
	return changed
}

// PathSep joins the agents of a Path where people read it.
const PathSep = " › "

// Path is the chain of agent ids from the lead down to agent id by the
// records' parent links, lead first ("lead", "reviewer-1", "explore-3"):
// what an approval names. A parent the records do not hold (a teammate,
// the lead) is named as it is and the walk ends at the lead; a loop in
// the links ends it too.
func Path(id string, get func(id string) (Record, bool)) []string {
	var up []string
	for p := id; p != ""; {
		if p == event.LeadID || slices.Contains(up, p) {
			break
		}
		up = append(up, p)
		r, ok := get(p)
		if !ok {
			break
		}
		p = r.ParentID
	}
	up = append(up, event.LeadID)
	slices.Reverse(up)
	return up
}
