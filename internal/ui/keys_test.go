package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/event"
)

// quits reports whether the command returned by an update is tea.Quit.
func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	for _, msg := range cmdMsgs(cmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

func updateCmd(m *Model, msg tea.Msg) tea.Cmd {
	if m.sb.printing { // the terminal caught up with the prints under way
		m.Update(printedMsg{})
	}
	_, cmd := m.Update(msg)
	return cmd
}

func TestEnterSubmitsThePromptAndShowsIt(t *testing.T) {
	m, b, _ := newTestModel(t, 80, 20)
	typeText(m, "hello there")
	press(m, "enter")
	if len(b.submitted) != 1 || b.submitted[0] != "hello there" {
		t.Fatalf("submitted %q", b.submitted)
	}
	if !m.in.empty() {
		t.Error("input not cleared after sending")
	}
	if !strings.Contains(frame(m), "❯ hello there") {
		t.Errorf("the prompt is not in the transcript:\n%s", frame(m))
	}
}

func TestAltEnterAndTrailingBackslashInsertNewlines(t *testing.T) {
	m, b, _ := newTestModel(t, 80, 20)
	typeText(m, "one")
	press(m, "alt+enter")
	typeText(m, `two\`)
	press(m, "enter")
	typeText(m, "three")
	if got := m.in.value(); got != "one\ntwo\nthree" {
		t.Fatalf("input = %q, want three lines", got)
	}
	press(m, "enter")
	if len(b.submitted) != 1 || b.submitted[0] != "one\ntwo\nthree" {
		t.Errorf("submitted %q", b.submitted)
	}
}

func TestUpAndDownWalkTheHistory(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 20)
	for _, p := range []string{"first", "second"} {
		typeText(m, p)
		press(m, "enter")
	}
	typeText(m, "draft")
	press(m, "up")
	if v := m.in.value(); v != "second" {
		t.Errorf("up once = %q, want second", v)
	}
	press(m, "up")
	if v := m.in.value(); v != "first" {
		t.Errorf("up twice = %q, want first", v)
	}
	press(m, "down")
	press(m, "down")
	if v := m.in.value(); v != "draft" {
		t.Errorf("down back to the draft = %q", v)
	}
}

func TestEscInterruptsOnlyWhenSomethingRuns(t *testing.T) {
	m, b, _ := newTestModel(t, 80, 20)
	press(m, "esc")
	if len(b.interrupts) != 0 {
		t.Fatal("esc with nothing running interrupted")
	}
	feedEvents(m,
		taskStart(at(0), "c1", "explore", "Look around", "background"),
		subStart(at(0), "explore-1", "c1", "explore", "Look around", true),
	)
	press(m, "esc")
	if len(b.interrupts) != 0 {
		t.Fatalf("a first esc stopped the background agent (%d interrupts)", len(b.interrupts))
	}
	press(m, "esc")
	if len(b.interrupts) != 1 {
		t.Fatalf("a second esc during a background agent made %d interrupts, want 1", len(b.interrupts))
	}
	feedEvents(m, interrupt(at(3)))
	if !strings.Contains(frame(m), "╰ Interrupted") {
		t.Errorf("the background agent is not shown interrupted:\n%s", frame(m))
	}
}

func TestCtrlCInterruptsThenASecondWithinTwoSecondsQuits(t *testing.T) {
	m, b, c := newTestModel(t, 80, 20)
	userAsk(m, "work")
	if quits(updateCmd(m, keyMsg("ctrl+c"))) {
		t.Fatal("first ctrl+c quit")
	}
	if len(b.interrupts) != 1 {
		t.Errorf("first ctrl+c while busy made %d interrupts, want 1", len(b.interrupts))
	}
	if !strings.Contains(frame(m), "Press Ctrl+C again to quit") {
		t.Error("no hint after the first ctrl+c")
	}
	c.Set(t0.Add(3 * time.Second))
	if quits(updateCmd(m, keyMsg("ctrl+c"))) {
		t.Fatal("a ctrl+c 3s after the first quit")
	}
	c.Set(t0.Add(4 * time.Second))
	if !quits(updateCmd(m, keyMsg("ctrl+c"))) {
		t.Fatal("a second ctrl+c within 2s did not quit")
	}
}

func TestCtrlDQuitsOnlyOnAnEmptyInput(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 20)
	typeText(m, "x")
	if quits(updateCmd(m, keyMsg("ctrl+d"))) {
		t.Fatal("ctrl+d with text quit")
	}
	m.in.reset()
	if !quits(updateCmd(m, keyMsg("ctrl+d"))) {
		t.Fatal("ctrl+d on an empty input did not quit")
	}
}

func TestCtrlOTogglesTreesAndToolOutput(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 40)
	m.cfg.AltScreen = true // inline, the finished tool call is printed as it was (scrollback_test.go)
	feedEvents(m,
		ev(event.ToolStart, at(0), event.LeadID, "t1", event.ToolStartData{Name: "bash", Input: []byte(`{"command":"ls"}`)}),
		ev(event.ToolComplete, at(1), event.LeadID, "t1", event.ToolCompleteData{Name: "bash", Success: true, Result: "a.go\nb.go\nc.go\n"}),
		leadText(at(1), "Now agents."),
		taskStart(at(2), "c1", "explore", "Look around", ""),
	)
	f := frame(m)
	if !strings.Contains(f, "● bash ls") || !strings.Contains(f, "╰ a.go (+2 lines, ctrl+o to expand)") || strings.Contains(f, "b.go") {
		t.Errorf("compact tool call:\n%s", f)
	}
	press(m, "ctrl+o")
	f = frame(m)
	if !strings.Contains(f, "b.go") || !strings.Contains(f, "Prompt: Please look around.") || !strings.Contains(f, "(ctrl+o to collapse)") {
		t.Errorf("expanded view lacks the tool output or the agent's prompt:\n%s", f)
	}
	press(m, "ctrl+o")
	if strings.Contains(frame(m), "b.go") {
		t.Error("second ctrl+o did not collapse")
	}
}

func TestTypingKeepsWorkingWhileEventsStream(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 20)
	for i, r := range "interleaved" {
		feedEvents(m, ev(event.MessageDelta, at(float64(i)), event.LeadID, "", event.MessageDeltaData{Text: "word "}))
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if v := m.in.value(); v != "interleaved" {
		t.Errorf("input = %q: keystrokes were lost during the stream", v)
	}
}

func TestResizeReflowsTheTranscript(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 20)
	userAsk(m, strings.Repeat("word ", 30))
	wide := frame(m)
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 20})
	narrow := frame(m)
	for _, l := range strings.Split(narrow, "\n") {
		if len([]rune(l)) > 40 {
			t.Errorf("line wider than 40 after resize: %q", l)
		}
	}
	if strings.Count(narrow, "word") != strings.Count(wide, "word") {
		t.Error("text lost when reflowing")
	}
}

func TestEscInterruptsALeadWokenByBackgroundWorkUntilItsRecordSaysItCompleted(t *testing.T) {
	m, b, _ := newTestModel(t, 90, 20)
	userAsk(m, "Explore in the background.")
	feedEvents(m,
		leadText(at(0), "Started it."),
		taskStart(at(0), "c1", "explore", "Survey", "background"),
		subStart(at(0), "explore-1", "c1", "explore", "Survey", true),
		taskReturn(at(0.1), "c1", "Started background task explore-1", true),
		ev(event.TurnEnd, at(1), event.LeadID, "", event.TurnEndData{StopReason: "end_turn"}),
		subDone(at(5), "explore-1", "c1", 2, "Done."),
		// No prompt: the finished work wakes the lead, which answers.
		ev(event.MessageDelta, at(6), event.LeadID, "", event.MessageDeltaData{Text: "explore-1 finished: "}),
	)
	if got := frame(m); !strings.Contains(got, "esc to interrupt") {
		t.Errorf("the woken lead is at work but the status line does not offer esc:\n%s", got)
	}
	press(m, "esc")
	if len(b.interrupts) != 1 {
		t.Fatalf("esc while the woken lead works made %d interrupts, want 1", len(b.interrupts))
	}
	feedEvents(m,
		ev(event.TurnEnd, at(7), event.LeadID, "", event.TurnEndData{StopReason: "end_turn", Woken: true}),
		ev(event.Complete, at(7), event.LeadID, "", event.CompleteData{Result: "explore-1 finished: Done."}),
	)
	press(m, "esc")
	if len(b.interrupts) != 1 {
		t.Errorf("esc after the lead completed interrupted again (%d interrupts)", len(b.interrupts))
	}
	if got := frame(m); strings.Contains(got, "esc to interrupt") {
		t.Errorf("the completed lead is still shown at work:\n%s", got)
	}
}

func TestEscStopsTheLeadsTurnAndKeepsBackgroundAgentsUntilASecondEscWithinTwoSeconds(t *testing.T) {
	m, b, c := newTestModel(t, 80, 14)
	userAsk(m, "survey the repo")
	feedEvents(m,
		taskStart(at(0), "c1", "explore", "Look around", "background"),
		subStart(at(0), "explore-1", "c1", "explore", "Look around", true),
		taskReturn(at(0.1), "c1", "Started background task explore-1", true),
	)
	press(m, "esc")
	if len(b.turnStops) != 1 || len(b.interrupts) != 0 {
		t.Fatalf("esc while the lead works beside a background agent: %d turn stops, %d interrupts; want the turn stopped alone", len(b.turnStops), len(b.interrupts))
	}
	golden(t, "esc_keeps_background", frame(m))

	c.Set(t0.Add(3 * time.Second)) // too late for a second Esc
	press(m, "esc")
	if len(b.interrupts) != 0 {
		t.Fatal("an esc 3 s after the first stopped the background agent")
	}
	c.Set(t0.Add(4 * time.Second))
	press(m, "esc")
	if len(b.interrupts) != 1 {
		t.Fatalf("a second esc within 2 s made %d interrupts, want 1 (stopping the background agent)", len(b.interrupts))
	}
	if strings.Contains(frame(m), "keeps running") {
		t.Errorf("the hint stayed after the background agent was stopped:\n%s", frame(m))
	}
}

func TestEscWithNoBackgroundWorkStopsEverythingAtOnce(t *testing.T) {
	m, b, _ := newTestModel(t, 80, 14)
	userAsk(m, "survey the repo")
	feedEvents(m,
		taskStart(at(0), "c1", "explore", "Look around", ""),
		subStart(at(0), "explore-1", "c1", "explore", "Look around", false),
	)
	press(m, "esc")
	if len(b.interrupts) != 1 || len(b.turnStops) != 0 {
		t.Fatalf("esc with a sync agent only: %d interrupts, %d turn stops; want one interrupt", len(b.interrupts), len(b.turnStops))
	}
	if strings.Contains(frame(m), "Esc again") {
		t.Errorf("a hint about background work with none:\n%s", frame(m))
	}
}

func TestEscWithAnExternalCLILeadStopsItsBackgroundAgentsAtOnce(t *testing.T) {
	m, b, _ := newTestModel(t, 80, 14)
	b.cliLead = true
	feedEvents(m,
		taskStart(at(0), "c1", "explore", "Look around", "background"),
		subStart(at(0), "explore-1", "c1", "explore", "Look around", true),
	)
	press(m, "esc")
	if len(b.interrupts) != 1 || strings.Contains(frame(m), "keeps running") {
		t.Fatalf("esc with a CLI lead: %d interrupts, want 1 and no hint that anything keeps running:\n%s", len(b.interrupts), frame(m))
	}
}
