package lifecycle

// Holds reports whether agent id keeps the lead from completing (SPEC §2):
// a sub-agent pending, running or background, or whose session has not
// yet reported its end; a teammate spawning, working or idle. An id the
// reducer has not seen holds too: whoever registered it (bus.Owners)
// is about to emit its start.
func (s *State) Holds(id string) bool {
	if i, ok := s.byAgent[id]; ok {
		r := s.recs[i]
		return r.Status.Active() || r.Session == SessionOpen
	}
	if i, ok := s.byMateID[id]; ok {
		return s.mates[i].Status.Active()
	}
	return true
}

// Ended reports whether agent id has a final status: a sub-agent
// completed, failed or interrupted, a teammate in error, shut down or
// interrupted. An id the reducer has not seen has not ended.
func (s *State) Ended(id string) bool {
	if i, ok := s.byAgent[id]; ok {
		return s.recs[i].Status.Terminal()
	}
	if i, ok := s.byMateID[id]; ok {
		return s.mates[i].Status.Terminal()
	}
	return false
}
