package ui

import (
	"errors"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-agent/atomic/internal/event"
)

// fakeTeam records /team actions.
type fakeTeam struct {
	sent    [][2]string
	stopped []string
}

func (f *fakeTeam) Teammates() []Teammate {
	return []Teammate{{Name: "alice", Role: "reviewer", Status: "working"}, {Name: "bob", Status: "idle"}}
}
func (f *fakeTeam) Send(to, text string) error {
	if to == "nobody" {
		return errors.New(`no teammate "nobody"`)
	}
	f.sent = append(f.sent, [2]string{to, text})
	return nil
}
func (f *fakeTeam) Stop(name string) error { f.stopped = append(f.stopped, name); return nil }

func TestClearResetsTheRunAndTheTranscript(t *testing.T) {
	m, b, _ := newTestModel(t, 80, 20)
	userAsk(m, "something memorable")
	userAsk(m, "/clear")
	if len(b.resets) != 1 {
		t.Fatalf("/clear made %d resets, want 1", len(b.resets))
	}
	f := frame(m)
	if strings.Contains(f, "something memorable") || !strings.Contains(f, "Conversation cleared.") {
		t.Errorf("transcript after /clear:\n%s", f)
	}
}

func TestModelShowsAndSwitches(t *testing.T) {
	m, b, _ := newTestModel(t, 80, 20)
	userAsk(m, "/model")
	if !strings.Contains(frame(m), "Model: test-model") {
		t.Errorf("/model does not show the model:\n%s", frame(m))
	}
	b.models = []string{"other-model"}
	runLater(t, m, ask(m, "/model other-model"))
	if len(b.switched) != 1 || b.switched[0] != "other-model" {
		t.Errorf("switched %q", b.switched)
	}
	if !strings.Contains(frame(m), "other-model ·") {
		t.Errorf("status line does not show the new model:\n%s", frame(m))
	}
}

func TestAgentsListsTypesWithTheirSource(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 30)
	userAsk(m, "/agents")
	f := frame(m)
	for _, want := range []string{"explore · built-in", "general-purpose · built-in", "reviewer · .atomic/agents/reviewer.md"} {
		if !strings.Contains(f, want) {
			t.Errorf("/agents lacks %q:\n%s", want, f)
		}
	}
}

func TestTasksListsBackgroundAgentsAndCancelsTheSelectedOne(t *testing.T) {
	m, b, c := newTestModel(t, 100, 24)
	feedEvents(m,
		taskStart(at(0), "c1", "explore", "Sync look", ""),
		taskStart(at(0), "c2", "explore", "Slow survey", "background"),
		taskStart(at(0), "c3", "general-purpose", "Long build", "background"),
		subStart(at(0), "explore-2", "c2", "explore", "Slow survey", true),
		subStart(at(0), "general-purpose-1", "c3", "general-purpose", "Long build", true),
		subDone(at(4), "explore-2", "c2", 3, "done"),
	)
	c.Set(at(9))
	userAsk(m, "/tasks")
	f := ansi.Strip(strings.Join(m.tasks.view(m), "\n"))
	if strings.Contains(f, "Sync look") {
		t.Errorf("/tasks lists a sync agent:\n%s", f)
	}
	for _, want := range []string{"explore-2 · Slow survey · completed · 4s", "general-purpose-1 · Long build · background · 9s"} {
		if !strings.Contains(f, want) {
			t.Errorf("/tasks lacks %q:\n%s", want, f)
		}
	}
	press(m, "x") // the first row is finished: nothing to cancel
	if len(b.cancelled) != 0 {
		t.Fatalf("cancelled a finished task: %q", b.cancelled)
	}
	press(m, "down")
	press(m, "x")
	if len(b.cancelled) != 1 || b.cancelled[0] != "general-purpose-1" {
		t.Errorf("cancelled %q, want general-purpose-1", b.cancelled)
	}
	press(m, "esc")
	if m.tasks != nil {
		t.Error("esc did not close the tasks panel")
	}
	userAsk(m, "/tasks cancel explore-9")
	if len(b.cancelled) != 2 || b.cancelled[1] != "explore-9" {
		t.Errorf("/tasks cancel ID did not cancel: %q", b.cancelled)
	}
}

func TestTasksResumeContinuesAnInterruptedTaskOrSaysWhyNot(t *testing.T) {
	m, b, _ := newTestModel(t, 100, 30)
	userAsk(m, "/tasks resume explore-1")
	if len(b.resumed) != 1 || b.resumed[0] != "explore-1" || !strings.Contains(frame(m), "Resuming explore-1 in the background…") {
		t.Fatalf("resumed %q; frame:\n%s", b.resumed, frame(m))
	}
	userAsk(m, "/tasks resume unknown-1")
	if !strings.Contains(frame(m), `no interrupted task "unknown-1" to resume`) {
		t.Fatalf("the error is not shown:\n%s", frame(m))
	}
}

func TestTeamCommandListsSendsAndStops(t *testing.T) {
	team := &fakeTeam{}
	m := New(Config{Backend: &fakeBackend{}, Team: team, Now: (&clock{now: t0}).Now})
	m.Update(sizeMsg(100, 30))
	userAsk(m, "/team")
	if f := frame(m); !strings.Contains(f, "alice · reviewer · working") || !strings.Contains(f, "bob · idle") {
		t.Errorf("/team listing:\n%s", f)
	}
	userAsk(m, "/team send alice please  review the diff")
	if len(team.sent) != 1 || team.sent[0] != [2]string{"alice", "please  review the diff"} {
		t.Errorf("sent %q", team.sent)
	}
	userAsk(m, "/team stop bob")
	if len(team.stopped) != 1 || team.stopped[0] != "bob" {
		t.Errorf("stopped %q", team.stopped)
	}
	userAsk(m, "/team send nobody hi")
	if !strings.Contains(frame(m), `no teammate "nobody"`) {
		t.Error("a failed send is not reported")
	}
}

func TestTeamCommandWithoutATeamSaysSo(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 20)
	userAsk(m, "/team")
	if !strings.Contains(frame(m), "No team in this session.") {
		t.Errorf("frame:\n%s", frame(m))
	}
}

func TestUnknownCommandIsReported(t *testing.T) {
	m, b, _ := newTestModel(t, 80, 20)
	userAsk(m, "/frobnicate")
	if len(b.submitted) != 0 {
		t.Error("an unknown command was sent to the model")
	}
	if !strings.Contains(frame(m), "Unknown command /frobnicate") {
		t.Errorf("frame:\n%s", frame(m))
	}
}

func TestHelpAndQuit(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 40)
	userAsk(m, "/help")
	if !strings.Contains(frame(m), "/tasks [cancel ID]") {
		t.Errorf("help:\n%s", frame(m))
	}
	m.in.ta.SetValue("/quit")
	if !quits(updateCmd(m, keyMsg("enter"))) {
		t.Error("/quit did not quit")
	}
}

func TestTeamEventsDrawATeamTreeAndNotifyMessagesToTheLead(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 30)
	feedEvents(m,
		ev(event.TeammateStatus, at(0), "alice", "", event.TeammateStatusData{Name: "alice", Role: "reviewer", Status: "working"}),
		ev(event.TeammateStatus, at(0), "bob", "", event.TeammateStatusData{Name: "bob", Role: "tester", Status: "working"}),
		ev(event.TeamMessage, at(1), "alice", "", event.TeamMessageData{From: "alice", To: event.LeadID, Content: "The diff looks good."}),
		ev(event.TeammateStatus, at(2), "bob", "", event.TeammateStatusData{Name: "bob", Role: "tester", Status: "error", Error: "tests did not build"}),
	)
	f := frame(m)
	for _, want := range []string{
		"● Team · 2 teammates · 1 active",
		"├─ ● alice · reviewer · working",
		"│    ╰ The diff looks good.",
		"└─ ● bob · tester · error",
		"╰ tests did not build",
		"✉ alice → lead: The diff looks good.",
	} {
		if !strings.Contains(f, want) {
			t.Errorf("frame lacks %q:\n%s", want, f)
		}
	}
	if !strings.Contains(f, "1 teammate active") {
		t.Errorf("status line does not count active teammates:\n%s", f)
	}
	th := DefaultTheme()
	if teammateColor(th, lifecycle.MateWorking) != th.Muted || teammateColor(th, lifecycle.MateIdle) != th.Muted ||
		teammateColor(th, lifecycle.MateError) != th.Danger || teammateColor(th, lifecycle.MateShutdown) != th.Success ||
		teammateColor(th, lifecycle.MateInterrupted) != th.Warning {
		t.Error("teammate colours do not follow the agent rule")
	}
}

func TestTasksListsANestedBackgroundAgentAndShellUnderTheirAncestorAndStopsTheSelectedNode(t *testing.T) {
	m, b, c := newTestModel(t, 100, 24)
	shell := ev(event.ShellStart, at(2), "shell-1", "b1", event.ShellStartData{Command: "go test ./..."})
	shell.ParentAgentID = "general-purpose-2"
	feedEvents(m,
		taskStart(at(0), "c1", "general-purpose", "Audit", "background"),
		subStart(at(0), "general-purpose-1", "c1", "general-purpose", "Audit", true),
		taskStart(at(0), "c9", "explore", "Other", "background"),
		subStart(at(0), "explore-1", "c9", "explore", "Other", true),
		nestedTaskStart("general-purpose-1", "c2", "general-purpose-2", "Check Login"),
		nestedSubStart("general-purpose-2", "general-purpose-1", "c2", "Check Login"),
		shell,
	)
	// The nested agent runs in the background of its parent.
	bg := ev(event.SubagentStart, at(1.2), "general-purpose-2", "c2", event.SubagentStartData{AgentType: "general-purpose", Description: "Check Login", Background: true})
	bg.ParentAgentID = "general-purpose-1"
	feedEvents(m, bg)
	c.Set(at(5))
	userAsk(m, "/tasks")
	var got []string
	for _, l := range m.tasks.view(m)[1:] {
		got = append(got, strings.TrimSpace(ansi.Strip(l)))
	}
	want := []string{
		"❯ ● general-purpose-1 · Audit · background · 5s",
		"● general-purpose-2 · Check Login · background · 4s",
		"● shell-1 · $ go test ./... · running · 3s",
		"● explore-1 · Other · background · 5s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("/tasks rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if lines := m.tasks.view(m); !strings.Contains(ansi.Strip(lines[3]), "    ● shell-1") {
		t.Errorf("the shell is not indented two levels: %q", ansi.Strip(lines[3]))
	}
	press(m, "down")
	press(m, "x")
	if len(b.cancelled) != 1 || b.cancelled[0] != "general-purpose-2" {
		t.Errorf("cancelled %q, want the nested general-purpose-2", b.cancelled)
	}
}
