package lifecycle

import (
	"fmt"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

func TestDisplayName(t *testing.T) {
	for in, want := range map[string]string{
		"explore": "Explore", "Explore": "Explore", "general-purpose": "general-purpose",
		"code-reviewer": "code-reviewer", "": "",
	} {
		if got := DisplayName(in); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", in, got, want)
		}
	}
}

// stateOf builds a State with one record per spec: agent type and the status
// it should end in.
func stateOf(t *testing.T, specs ...[2]string) *State {
	t.Helper()
	var s State
	for i, sp := range specs {
		call, agent := fmt.Sprintf("c%d", i), fmt.Sprintf("a%d", i)
		input := fmt.Sprintf(`{"subagent_type":%q}`, sp[0])
		if Status(sp[1]) == Background {
			input = fmt.Sprintf(`{"subagent_type":%q,"mode":"background"}`, sp[0])
		}
		s.Apply(taskStart(call, input, at(0)))
		s.Apply(subStart(agent, call, event.SubagentStartData{AgentType: sp[0], Background: Status(sp[1]) == Background}, at(0)))
		switch Status(sp[1]) {
		case Pending:
			s.Apply(subUpdate(agent, event.SubagentUpdateData{Waiting: WaitingSlot}, at(1)))
		case Completed:
			s.Apply(subComplete(agent, event.SubagentCompleteData{Success: true}, at(1)))
		case Error:
			s.Apply(subComplete(agent, event.SubagentCompleteData{Error: "failed"}, at(1)))
		case Interrupted:
			s.Apply(subComplete(agent, event.SubagentCompleteData{Cancelled: true}, at(1)))
		}
		if r, _ := s.Get(agent); r.Status != Status(sp[1]) {
			t.Fatalf("setup: %s is %s, want %s", agent, r.Status, sp[1])
		}
	}
	return &s
}

func TestHeader(t *testing.T) {
	tests := []struct {
		name  string
		specs [][2]string
		want  string
	}{
		{"none", nil, ""},
		{"three Explore agents running", [][2]string{{"explore", "running"}, {"explore", "running"}, {"explore", "pending"}}, "Running 3 Explore agents…"},
		{"mixed types running (SPEC §4 example)", [][2]string{{"explore", "running"}, {"general-purpose", "running"}, {"general-purpose", "background"}}, "Running 3 agents…"},
		{"one Explore agent running", [][2]string{{"explore", "running"}}, "Running 1 Explore agent…"},
		{"background alone keeps it running", [][2]string{{"explore", "completed"}, {"explore", "background"}}, "Running 2 Explore agents…"},
		{"four Explore agents finished", [][2]string{{"explore", "completed"}, {"explore", "completed"}, {"explore", "completed"}, {"explore", "completed"}}, "4 Explore agents finished"},
		{"mixed finished with one failed (SPEC §4 example)", [][2]string{{"explore", "completed"}, {"general-purpose", "completed"}, {"general-purpose", "error"}}, "3 agents finished · 1 failed"},
		{"mixed finished", [][2]string{{"explore", "completed"}, {"general-purpose", "completed"}, {"general-purpose", "completed"}}, "3 agents finished"},
		{"interrupted named", [][2]string{{"explore", "completed"}, {"explore", "interrupted"}, {"explore", "interrupted"}}, "3 Explore agents finished · 2 interrupted"},
		{"failed and interrupted named", [][2]string{{"explore", "error"}, {"general-purpose", "interrupted"}, {"explore", "completed"}}, "3 agents finished · 1 failed · 1 interrupted"},
		{"one agent finished", [][2]string{{"general-purpose", "completed"}}, "1 general-purpose agent finished"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stateOf(t, tt.specs...).Header(); got != tt.want {
				t.Errorf("Header() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{-3 * time.Second, "0s"},
		{900 * time.Millisecond, "0s"},
		{12 * time.Second, "12s"},
		{31 * time.Second, "31s"},
		{59*time.Second + 999*time.Millisecond, "59s"},
		{60 * time.Second, "1m 00s"},
		{62 * time.Second, "1m 02s"},
		{59*time.Minute + 59*time.Second, "59m 59s"},
		{time.Hour + 3*time.Minute + 59*time.Second, "1h 03m"},
		{26 * time.Hour, "26h 00m"},
	}
	for _, tt := range tests {
		if got := FormatDuration(tt.d); got != tt.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestSubLine(t *testing.T) {
	tests := []struct {
		name string
		r    Record
		want string
	}{
		{"running with a current tool (SPEC §4)", Record{Status: Running, CurrentTool: `grep "func.*Auth" internal/`}, `grep "func.*Auth" internal/`},
		{"running before the first tool", Record{Status: Running}, "Initializing…"},
		{"background agent", Record{Status: Background, Background: true, CurrentTool: "bash", ToolUses: 2}, "Running in background…"},
		{"pending for a slot", Record{Status: Pending, Waiting: WaitingSlot}, "Queued…"},
		{"pending without a wait", Record{Status: Pending}, "Initializing…"},
		{"background queued for a slot", Record{Status: Background, Background: true, Waiting: WaitingSlot}, "Queued…"},
		{"waiting for approval", Record{Status: Running, CurrentTool: "bash", Waiting: "bash: rm -rf build"}, "Waiting for approval: bash: rm -rf build"},
		{"background waiting for approval", Record{Status: Background, Background: true, Waiting: "edit main.go"}, "Waiting for approval: edit main.go"},
		{"completed", Record{Status: Completed, Result: "long answer"}, "Done"},
		{"error shows the error (SPEC §4)", Record{Status: Error, Error: "bash exited 1: 2 tests failed"}, "bash exited 1: 2 tests failed"},
		{"error shows its first line", Record{Status: Error, Error: "\n  provider unreachable  \nretries spent"}, "provider unreachable"},
		{"error without text", Record{Status: Error}, "Failed"},
		{"interrupted", Record{Status: Interrupted, Background: true}, "Interrupted"},
		{"remote agent restarted on another worker", Record{Status: Running, Worker: "worker-b", Note: "restarted on worker-b", CurrentTool: "read a.go"}, "restarted on worker-b · read a.go"},
		{"remote agent waiting for a silent worker", Record{Status: Background, Background: true, Note: "waiting for worker-a: no word for 1s"}, "waiting for worker-a: no word for 1s"},
		{"remote agent that ended says how, not its note", Record{Status: Completed, Note: "restarted on worker-b"}, "Done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SubLine(tt.r); got != tt.want {
				t.Errorf("SubLine = %q, want %q", got, tt.want)
			}
		})
	}
}
