package lifecycle

import (
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

func shellStart(id, parent, command string, t time.Time) event.Event {
	return event.Event{Type: event.ShellStart, Time: t, AgentID: id, ParentAgentID: parent, ToolCallID: "call-" + id,
		Data: event.ShellStartData{Command: command}}
}

func shellOutput(id, line string, t time.Time) event.Event {
	return event.Event{Type: event.ShellOutput, Time: t, AgentID: id, Data: event.ShellOutputData{Line: line}}
}

func shellEnd(id string, d event.ShellEndData, t time.Time) event.Event {
	return event.Event{Type: event.ShellEnd, Time: t, AgentID: id, Data: d}
}

func TestAShellIsARunningRecordOfItsStarterUntilItExits(t *testing.T) {
	s := applyAll(shellStart("shell-1", lead, "sleep 1; echo done", at(0)), shellOutput("shell-1", "half way", at(0.5)))
	r, ok := s.Get("shell-1")
	if !ok || !r.IsShell() || r.Status != Running || r.ParentID != lead || r.Command != "sleep 1; echo done" || r.LastLine != "half way" {
		t.Fatalf("shell record = %+v", r)
	}
	if s.Settled() || s.Shells(lead) != 1 || s.Shells("other") != 0 {
		t.Fatalf("a running shell does not hold the completion gate: settled %v, shells %d", s.Settled(), s.Shells(lead))
	}
	s.Apply(shellEnd("shell-1", event.ShellEndData{Tail: "half way\ndone\n"}, at(1.25)))
	r, _ = s.Get("shell-1")
	if r.Status != Completed || r.LastLine != "done" || r.Duration != 1250*time.Millisecond || !s.Settled() {
		t.Fatalf("after exit 0: %+v, settled %v", r, s.Settled())
	}
}

func TestAShellEndsErrorOnANonZeroExitAndInterruptedWhenStopped(t *testing.T) {
	s := applyAll(
		shellStart("shell-1", lead, "false", at(0)),
		shellStart("shell-2", "explore-1", "sleep 9", at(0)),
		shellEnd("shell-1", event.ShellEndData{ExitCode: 1}, at(1)),
		shellEnd("shell-2", event.ShellEndData{ExitCode: -1, Interrupted: true, Reason: "killed by kill_shell"}, at(2)),
	)
	if r, _ := s.Get("shell-1"); r.Status != Error || r.ExitCode != 1 || r.Error != "exit status 1" {
		t.Errorf("exit 1: %+v", r)
	}
	if r, _ := s.Get("shell-2"); r.Status != Interrupted || r.Error != "killed by kill_shell" || r.ParentID != "explore-1" {
		t.Errorf("stopped: %+v", r)
	}
}

func TestAnInterruptEndsRunningShellsAndNothingMovesAnEndedShell(t *testing.T) {
	s := applyAll(shellStart("shell-1", lead, "sleep 9", at(0)), interruptAt(at(1)))
	r, _ := s.Get("shell-1")
	if r.Status != Interrupted || r.Duration != time.Second {
		t.Fatalf("after an interrupt: %+v", r)
	}
	for _, e := range []event.Event{
		shellEnd("shell-1", event.ShellEndData{ExitCode: 0}, at(3)),
		shellOutput("shell-1", "late", at(3)),
		shellStart("shell-1", lead, "again", at(3)),
		subComplete("shell-1", event.SubagentCompleteData{Success: true}, at(3)),
	} {
		if changed := s.Apply(e); changed != nil {
			t.Errorf("%s changed an ended shell: %+v", e.Type, changed)
		}
	}
}

func TestShellEventsNeverTouchAnAgentsRecord(t *testing.T) {
	s := applyAll(taskStart("c1", `{"mode":"background"}`, at(0)), subStart("explore-1", "c1", event.SubagentStartData{AgentType: "explore", Background: true}, at(0)))
	for _, e := range []event.Event{shellOutput("explore-1", "x", at(1)), shellEnd("explore-1", event.ShellEndData{}, at(1)), shellStart("explore-1", lead, "x", at(1))} {
		if changed := s.Apply(e); changed != nil {
			t.Errorf("%s changed the agent: %+v", e.Type, changed)
		}
	}
	if r, _ := s.Get("explore-1"); r.Status != Background || r.IsShell() {
		t.Errorf("agent = %+v", r)
	}
}

func TestLastLineSkipsTrailingBlankLines(t *testing.T) {
	for in, want := range map[string]string{"": "", "a\nb\n\n  \n": "b", "one": "one", "x\r\n": "x", "\n\n": ""} {
		if got := LastLine(in); got != want {
			t.Errorf("LastLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnAgentWhoseTurnEndedWithItsShellRunningWaitsAndCompletesOnlyAfterTheShell(t *testing.T) {
	s := applyAll(
		taskStart("c1", `{"description":"run tests","prompt":"p","mode":"background"}`, at(0)),
		subStart("general-purpose-1", "c1", event.SubagentStartData{AgentType: "general-purpose", Background: true}, at(0)),
		shellStart("shell-1", "general-purpose-1", "go test ./...", at(1)),
		subUpdate("general-purpose-1", event.SubagentUpdateData{Idle: true}, at(2)),
	)
	if r, _ := s.Get("general-purpose-1"); r.Status != Waiting {
		t.Fatalf("turn ended with its shell running: %s, want waiting", r.Status)
	}
	s.Apply(subComplete("general-purpose-1", event.SubagentCompleteData{Success: true, Result: "started the tests"}, at(3)))
	if r, _ := s.Get("general-purpose-1"); r.Status != Waiting || s.Settled() {
		t.Fatalf("a completion reported while its shell runs: %s, settled %v; want waiting, not settled", r.Status, s.Settled())
	}
	s.Apply(shellEnd("shell-1", event.ShellEndData{Tail: "ok\n"}, at(4)))
	if r, _ := s.Get("general-purpose-1"); r.Status != Completed || !s.Settled() {
		t.Fatalf("after its shell ended: %s, settled %v; want completed", r.Status, s.Settled())
	}
}

func TestATreeOfAgentsAndShellsCountsEachInItsHeader(t *testing.T) {
	s := applyAll(
		taskStart("c1", `{"description":"build","prompt":"p","mode":"background"}`, at(0)),
		subStart("general-purpose-1", "c1", event.SubagentStartData{AgentType: "general-purpose", Background: true}, at(0)),
		shellStart("shell-1", "general-purpose-1", "make", at(1)),
		shellStart("shell-2", lead, "make test", at(1)),
	)
	if got := s.Header(); got != "Running 1 agent, 2 shells…" {
		t.Errorf("running: %q", got)
	}
	s.Apply(shellEnd("shell-1", event.ShellEndData{ExitCode: 2}, at(2)))
	s.Apply(shellEnd("shell-2", event.ShellEndData{}, at(2)))
	s.Apply(subComplete("general-purpose-1", event.SubagentCompleteData{Success: true}, at(3)))
	if got := s.Header(); got != "1 agent, 2 shells finished · 1 failed" {
		t.Errorf("finished: %q", got)
	}
	only := applyAll(shellStart("shell-1", lead, "make", at(0)))
	if got := only.Header(); got != "Running 1 background shell…" {
		t.Errorf("shells only: %q", got)
	}
}
