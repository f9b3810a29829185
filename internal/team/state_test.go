package team

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func statusEvent(name string, st Status, at int) event.Event {
	return event.Event{Type: event.TeammateStatus, Time: t0.Add(time.Duration(at) * time.Second),
		AgentID: AgentID(name), Data: event.TeammateStatusData{Name: name, Role: "r", Status: string(st)}}
}

func TestStateCountsSpawningWorkingAndIdleAsActive(t *testing.T) {
	var s State
	s.Apply(statusEvent("a", Spawning, 0))
	s.Apply(statusEvent("b", Spawning, 0))
	s.Apply(statusEvent("c", Spawning, 0))
	s.Apply(statusEvent("b", Working, 1))
	s.Apply(statusEvent("c", Working, 1))
	s.Apply(statusEvent("c", Idle, 2))
	if got := s.Active(); got != 3 {
		t.Fatalf("Active = %d, want 3 (spawning, working and idle are all alive)", got)
	}
	for name, want := range map[string]Status{"a": Spawning, "b": Working, "c": Idle} {
		if m, _ := s.Get(name); m.Status != want {
			t.Errorf("%s: status %s, want %s", name, m.Status, want)
		}
	}
}

func TestStateTerminalStatusesCountDownOnceAndStick(t *testing.T) {
	cases := []struct {
		name  string
		final Status
	}{
		{"error", Error}, {"shutdown", Shutdown}, {"interrupted", Interrupted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s State
			s.Apply(statusEvent("a", Spawning, 0))
			s.Apply(statusEvent("b", Spawning, 0))
			s.Apply(statusEvent("a", Working, 1))
			if !s.Apply(statusEvent("a", c.final, 2)) {
				t.Fatal("terminal status did not change the state")
			}
			if got := s.Active(); got != 1 {
				t.Fatalf("Active = %d after one teammate ended, want 1", got)
			}
			for _, late := range []Status{Working, Idle, Error, Shutdown, Interrupted} {
				if s.Apply(statusEvent("a", late, 3)) {
					t.Errorf("late %s moved a %s teammate", late, c.final)
				}
			}
			if got := s.Active(); got != 1 {
				t.Fatalf("Active = %d after late events, want 1", got)
			}
			m, _ := s.Get("a")
			if m.Status != c.final || !m.Ended.Equal(t0.Add(2*time.Second)) {
				t.Errorf("member = %+v, want status %s ended at its terminal event", m, c.final)
			}
		})
	}
}

func TestStateRespawnAfterEndIsANewIncarnation(t *testing.T) {
	var s State
	s.Apply(statusEvent("a", Spawning, 0))
	s.Apply(statusEvent("a", Error, 1))
	if s.Active() != 0 {
		t.Fatal("an errored teammate still counts")
	}
	if !s.Apply(statusEvent("a", Spawning, 5)) {
		t.Fatal("spawning after an end did not start a new incarnation")
	}
	m, _ := s.Get("a")
	if s.Active() != 1 || m.Status != Spawning || m.Error != "" || !m.Started.Equal(t0.Add(5*time.Second)) || !m.Ended.IsZero() {
		t.Fatalf("after respawn: active %d, member %+v", s.Active(), m)
	}
	if len(s.Members()) != 1 {
		t.Fatalf("members = %d, want the new incarnation in the old one's place", len(s.Members()))
	}
	if s.Apply(statusEvent("a", Spawning, 6)) {
		t.Error("spawning on a live teammate changed the state")
	}
}

func TestStateIgnoresOtherEventsAndBadPayloads(t *testing.T) {
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
		if s.Apply(e) {
			t.Errorf("%s %+v changed the state", e.Type, e.Data)
		}
	}
	if len(s.Members()) != 0 {
		t.Fatalf("members = %+v, want none", s.Members())
	}
}

func TestStateReadsDecodedJSONAndPointerPayloads(t *testing.T) {
	var s State
	s.Apply(event.Event{Type: event.TeammateStatus, Data: json.RawMessage(`{"name":"a","role":"tester","status":"idle"}`)})
	s.Apply(event.Event{Type: event.TeammateStatus, Data: &event.TeammateStatusData{Name: "b", Status: "error", Error: "boom"}})
	a, _ := s.Get("a")
	b, _ := s.Get("b")
	if a.Status != Idle || a.Role != "tester" || b.Status != Error || b.Error != "boom" || s.Active() != 1 {
		t.Fatalf("a = %+v, b = %+v, active %d", a, b, s.Active())
	}
}
