package ui

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/charmbracelet/x/ansi"
)

func TestABackgroundShellShowsAsARowWithItsCommandElapsedAndLastLine(t *testing.T) {
	m, _, c := newTestModel(t, 90, 24)
	userAsk(m, "Run the tests in the background.")
	start := ev(event.ShellStart, at(0), "shell-1", "b1", event.ShellStartData{Command: "go test ./..."})
	start.ParentAgentID = event.LeadID
	feedEvents(m, leadText(at(0), "Starting them."), start,
		ev(event.ShellOutput, at(1), "shell-1", "", event.ShellOutputData{Line: "ok  pkg/a 0.2s"}))
	c.Set(at(3))
	m.Update(tickMsg(at(3)))
	got := frame(m)
	for _, want := range []string{"$ go test ./... · 3s", "ok  pkg/a 0.2s"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the frame lacks %q:\n%s", want, got)
		}
	}
	m.tasks = &tasksPanel{}
	if tasks := ansi.Strip(strings.Join(m.tasks.view(m), "\n")); !strings.Contains(tasks, "shell-1 · $ go test ./... · running") {
		t.Fatalf("/tasks does not list the shell:\n%s", tasks)
	}
	feedEvents(m, ev(event.ShellEnd, at(5), "shell-1", "", event.ShellEndData{ExitCode: 1, Tail: "FAIL pkg/b\n"}))
	got = frame(m)
	for _, want := range []string{"$ go test ./... · 5s", "exit 1 · FAIL pkg/b"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the ended shell's frame lacks %q:\n%s", want, got)
		}
	}
}
