package lifecycle

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

func mateEvent(name string, st TeammateStatus, at int) event.Event {
	return event.Event{Type: event.TeammateStatus, Time: t0.Add(time.Duration(at) * time.Second),
		AgentID: "team/" + name, Data: event.TeammateStatusData{Name: name, Role: "r", Status: string(st)}}
}

func TestTeammatesCountsSpawningWorkingAndIdleAsActive(t *testing.T) {
	var s State
	mateApply(&s, mateEvent("a", MateSpawning, 0))
	mateApply(&s, mateEvent("b", MateSpawning, 0))
	mateApply(&s, mateEvent("c", MateSpawning, 0))
	mateApply(&s, mateEvent("b", MateWorking, 1))
	mateApply(&s, mateEvent("c", MateWorking, 1))
	mateApply(&s, mateEvent("c", MateIdle, 2))
	if got := s.ActiveTeammates(); got != 3 {
		t.Fatalf("Active = %d, want 3 (spawning, working and idle are all alive)", got)
	}
	for name, want := range map[string]TeammateStatus{"a": MateSpawning, "b": MateWorking, "c": MateIdle} {
		if m, _ := s.Teammate(name); m.Status != want {
			t.Errorf("%s: status %s, want %s", name, m.Status, want)
		}
	}
}

func TestTeammatesTerminalStatusesCountDownOnceAndStick(t *testing.T) {
	cases := []struct {
		name  string
		final TeammateStatus
	}{
		{"error", MateError}, {"shutdown", MateShutdown}, {"interrupted", MateInterrupted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s State
			mateApply(&s, mateEvent("a", MateSpawning, 0))
			mateApply(&s, mateEvent("b", MateSpawning, 0))
			mateApply(&s, mateEvent("a", MateWorking, 1))
			if !mateApply(&s, mateEvent("a", c.final, 2)) {
				t.Fatal("terminal status did not change the state")
			}
			if got := s.ActiveTeammates(); got != 1 {
				t.Fatalf("Active = %d after one teammate ended, want 1", got)
			}
			for _, late := range []TeammateStatus{MateWorking, MateIdle, MateError, MateShutdown, MateInterrupted} {
				if mateApply(&s, mateEvent("a", late, 3)) {
					t.Errorf("late %s moved a %s teammate", late, c.final)
				}
			}
			if got := s.ActiveTeammates(); got != 1 {
				t.Fatalf("Active = %d after late events, want 1", got)
			}
			m, _ := s.Teammate("a")
			if m.Status != c.final || !m.Ended.Equal(t0.Add(2*time.Second)) {
				t.Errorf("member = %+v, want status %s ended at its terminal event", m, c.final)
			}
		})
	}
}

func TestTeammatesRespawnAfterEndIsANewIncarnation(t *testing.T) {
	var s State
	mateApply(&s, mateEvent("a", MateSpawning, 0))
	mateApply(&s, mateEvent("a", MateError, 1))
	if s.ActiveTeammates() != 0 {
		t.Fatal("an errored teammate still counts")
	}
	if !mateApply(&s, mateEvent("a", MateSpawning, 5)) {
		t.Fatal("spawning after an end did not start a new incarnation")
	}
	m, _ := s.Teammate("a")
	if s.ActiveTeammates() != 1 || m.Status != MateSpawning || m.Error != "" || !m.Started.Equal(t0.Add(5*time.Second)) || !m.Ended.IsZero() {
		t.Fatalf("after respawn: active %d, member %+v", s.ActiveTeammates(), m)
	}
	if len(s.Teammates()) != 1 {
		t.Fatalf("members = %d, want the new incarnation in the old one's place", len(s.Teammates()))
	}
	if mateApply(&s, mateEvent("a", MateSpawning, 6)) {
		t.Error("spawning on a live teammate changed the state")
	}
}

func TestTeammatesIgnoresOtherEventsAndBadPayloads(t *testing.T) {
	var s State
	ignored := []event.Event{
		{Type: event.TeamMessage, Data: event.TeamMessageData{From: "lead", To: "a", Content: "hi"}},
		{Type: event.SubagentStart, AgentID: "a"},
		{Type: event.TeammateStatus, Data: event.TeammateStatusData{Status: "working"}},
		{Type: event.TeammateStatus, Data: event.TeammateStatusData{Name: "a", Status: "running"}},
		{Type: event.TeammateStatus, Data: "not a payload"},
		{Type: event.Interrupt},
	}
	for _, e := range ignored {
		if mateApply(&s, e) {
			t.Errorf("%s %+v changed the state", e.Type, e.Data)
		}
	}
	if len(s.Teammates()) != 0 {
		t.Fatalf("members = %+v, want none", s.Teammates())
	}
}

func TestTeammatesReadsDecodedJSONAndPointerPayloads(t *testing.T) {
	var s State
	mateApply(&s, event.Event{Type: event.TeammateStatus, Data: json.RawMessage(`{"name":"a","role":"tester","status":"idle"}`)})
	mateApply(&s, event.Event{Type: event.TeammateStatus, Data: &event.TeammateStatusData{Name: "b", Status: "error", Error: "boom"}})
	a, _ := s.Teammate("a")
	b, _ := s.Teammate("b")
	if a.Status != MateIdle || a.Role != "tester" || b.Status != MateError || b.Error != "boom" || s.ActiveTeammates() != 1 {
		t.Fatalf("a = %+v, b = %+v, active %d", a, b, s.ActiveTeammates())
	}
}

// mateApply applies e and reports whether it changed the teammates.
func mateApply(s *State, e event.Event) bool {
	before := s.Teammates()
	s.Apply(e)
	return !slices.Equal(before, s.Teammates())
}

func TestAnIdleTeammateWhoseOwnAgentsAndShellsRunIsWaitingUntilTheLastEnds(t *testing.T) {
	var s State
	mateApply(&s, mateEvent("a", MateSpawning, 0))
	mateApply(&s, mateEvent("a", MateWorking, 1))
	sub := subStart("explore-1", "c1", event.SubagentStartData{Background: true}, at(2))
	sub.ParentAgentID = "team/a"
	s.Apply(sub)
	s.Apply(shellStart("shell-1", "team/a", "sleep 9", at(2)))
	idle := mateEvent("a", MateIdle, 3)
	s.Apply(idle)
	s.Resolve(&idle)
	if m, _ := s.Teammate("a"); m.Status != MateWaiting || s.ActiveTeammates() != 1 {
		t.Fatalf("teammate %+v, active %d: want waiting (its agent and shell run), still active", m, s.ActiveTeammates())
	}
	if d := idle.Data.(event.TeammateStatusData); d.Status != string(MateWaiting) {
		t.Errorf("the idle event as told: %q, want waiting", d.Status)
	}
	s.Apply(shellEnd("shell-1", event.ShellEndData{}, at(4)))
	if m, _ := s.Teammate("a"); m.Status != MateWaiting {
		t.Fatalf("after the shell: %s, want waiting on its agent", m.Status)
	}
	done := subComplete("explore-1", event.SubagentCompleteData{Result: "ok"}, at(5))
	done.ParentAgentID = "team/a"
	s.Apply(done)
	m, ok := s.ChangedTeammate()
	if !ok || m.Status != MateIdle {
		t.Fatalf("after its last agent ended: changed %v, %+v: want idle, reported changed", ok, m)
	}
	s.Apply(mateEvent("a", MateWorking, 6))
	s.Apply(mateEvent("a", MateIdle, 7))
	if m, _ := s.Teammate("a"); m.Status != MateIdle {
		t.Fatalf("with nothing of its own running: %s, want idle", m.Status)
	}
}
