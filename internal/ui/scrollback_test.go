package ui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-agent/atomic/internal/event"
)

// cmdMsgs runs cmd and the batches and sequences it returns, in order,
// and returns the messages they produce; each is waited for (a tick takes
// 500ms, and a model asks one at a time), one still running after 2s is
// left out.
func cmdMsgs(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(2 * time.Second):
		return nil
	}
	if msg == nil {
		return nil
	}
	// Batches and Bubble Tea's unexported sequence are both lists of Cmds.
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeFor[tea.Cmd]() {
		var out []tea.Msg
		for i := range v.Len() {
			c, _ := v.Index(i).Interface().(tea.Cmd)
			out = append(out, cmdMsgs(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// printer delivers a model's commands as Bubble Tea would and keeps what
// they print above the program, colour codes stripped.
type printer struct {
	m     *Model
	lines []string
}

// update runs msg through the model and then every command that follows,
// the printed lines kept, other messages (printedMsg) fed back.
func (p *printer) update(msg tea.Msg) {
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		_, cmd := p.m.Update(queue[0])
		queue = queue[1:]
		for _, out := range cmdMsgs(cmd) {
			if v := reflect.ValueOf(out); v.Kind() == reflect.Struct && v.Type().PkgPath() == "charm.land/bubbletea/v2" && v.NumField() == 1 {
				if f := v.Field(0); f.Kind() == reflect.String {
					p.lines = append(p.lines, strings.Split(ansi.Strip(f.String()), "\n")...)
					continue
				}
			}
			switch out.(type) {
			case printedMsg:
				queue = append(queue, out)
			}
		}
	}
}

func (p *printer) feed(evs ...event.Event) {
	p.update(eventsMsg{Events: feedOf(p.m).through(withToolStarts(evs))})
}

func (p *printer) text() string { return strings.Join(p.lines, "\n") }

func count(s, sub string) int { return strings.Count(s, sub) }

func TestFinishedEntriesArePrintedToTheScrollbackOnceAndInOrder(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 40)
	p := &printer{m: m}
	p.update(sizeMsg(100, 40))
	typeText(m, "fan out please")
	p.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	p.feed(
		leadText(at(0), "Fanning out."),
		taskStart(at(1), "c1", "explore", "Look around", ""),
		subStart(at(1), "a1", "c1", "explore", "Look around", true),
		leadText(at(2), "While they work, a later message."),
	)
	if !strings.Contains(p.text(), "fan out please") || !strings.Contains(p.text(), "Fanning out.") {
		t.Fatalf("the prompt and the first message were not printed:\n%s", p.text())
	}
	if strings.Contains(p.text(), "Explore") || strings.Contains(p.text(), "a later message") {
		t.Fatalf("a running tree, or a message after it, reached the scrollback:\n%s", p.text())
	}
	if l := live(m); !strings.Contains(l, "Running 1 Explore agent") || !strings.Contains(l, "a later message") || strings.Contains(l, "Fanning out.") {
		t.Fatalf("live region does not hold exactly the unfinished tail:\n%s", l)
	}
	p.feed(subDone(at(5), "a1", "c1", 3, "found it"), leadText(at(6), "All done."))
	p.update(eventsMsg{Events: []event.Event{ev(event.TurnEnd, at(7), event.LeadID, "", event.TurnEndData{})}})
	out := p.text()
	order := []string{"fan out please", "Fanning out.", "Explore", "a later message", "All done."}
	last := -1
	for _, s := range order {
		i := strings.Index(out, s)
		if i <= last {
			t.Fatalf("%q missing or out of order in the scrollback:\n%s", s, out)
		}
		last = i
	}
	for _, s := range []string{"fan out please", "Fanning out.", "a later message", "All done."} {
		if n := count(out, s); n != 1 {
			t.Errorf("%q printed %d times, want 1:\n%s", s, n, out)
		}
	}
	if l := live(m); strings.Contains(l, "Explore") || strings.Contains(l, "All done.") {
		t.Errorf("printed entries are drawn again in the live region:\n%s", l)
	}
	p.update(sizeMsg(60, 20)) // a resize prints nothing again
	p.update(sizeMsg(100, 40))
	if p.text() != out {
		t.Errorf("a resize changed the scrollback:\n%s", p.text())
	}
}

func TestQuittingPrintsTheUnfinishedTailBeforeItQuits(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 40)
	p := &printer{m: m}
	p.update(sizeMsg(100, 40))
	p.feed(leadText(at(0), "Fanning out."), taskStart(at(1), "c1", "explore", "Look around", ""))
	m.in.ta.SetValue("/exit")
	_, cmd := m.Update(keyMsg("enter"))
	var quit bool
	for _, msg := range cmdMsgs(cmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			quit = true
		} else if v := reflect.ValueOf(msg); v.Kind() == reflect.Struct && v.NumField() == 1 && v.Field(0).Kind() == reflect.String {
			p.lines = append(p.lines, strings.Split(ansi.Strip(v.Field(0).String()), "\n")...)
		}
		if quit && len(p.lines) == 0 {
			t.Fatal("quit came before the transcript was printed")
		}
	}
	if !quit {
		t.Fatal("/exit did not quit")
	}
	if count(p.text(), "Fanning out.") != 1 || !strings.Contains(p.text(), "Running 1 Explore agent") {
		t.Errorf("scrollback after quitting:\n%s", p.text())
	}
	if l := live(m); strings.Contains(l, "Fanning out.") || strings.Contains(l, "Explore") {
		t.Errorf("the last frame draws printed entries again:\n%s", l)
	}
}

func TestTheLiveRegionShowsItsBottomWhenTallerThanItsShare(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 12)
	p := &printer{m: m}
	p.update(sizeMsg(80, 12))
	p.feed(ev(event.MessageDelta, at(0), event.LeadID, "", event.MessageDeltaData{Text: strings.Repeat("line\n\n", 30) + "the end"}))
	lines := strings.Split(strings.TrimSuffix(live(m), "\n"), "\n")
	if len(lines) != m.liveCap() {
		t.Errorf("live region is %d lines, want %d:\n%s", len(lines), m.liveCap(), live(m))
	}
	if !strings.Contains(live(m), "the end") || !strings.Contains(lines[len(lines)-1], "ctx") {
		t.Errorf("live region does not end with the stream's last line and the status line:\n%s", live(m))
	}
}

func TestCtrlOExpandsTheLiveRegionAndLeavesPrintedRowsAsPrinted(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 40)
	p := &printer{m: m}
	p.update(sizeMsg(100, 40))
	p.feed(
		ev(event.ToolStart, at(0), event.LeadID, "t1", event.ToolStartData{Name: "bash", Input: []byte(`{"command":"ls"}`)}),
		ev(event.ToolComplete, at(1), event.LeadID, "t1", event.ToolCompleteData{Name: "bash", Success: true, Result: "a.go\nb.go\n"}),
		taskStart(at(2), "c1", "explore", "Look around", ""),
	)
	printed := p.text()
	p.update(keyMsg("ctrl+o"))
	if p.text() != printed || strings.Contains(live(m), "b.go") {
		t.Errorf("ctrl+o reprinted or redrew the finished tool call:\n%s\n---\n%s", p.text(), live(m))
	}
	if !strings.Contains(live(m), "Prompt: Please look around.") {
		t.Errorf("ctrl+o did not expand the live tree:\n%s", live(m))
	}
}

func TestTheLiveRegionKeepsItsHeightUntilAPrintSoBubbleTeaLeavesNoStaleRows(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 40)
	p := &printer{m: m}
	p.feed(taskStart(at(0), "c1", "explore", "Look around", ""))
	height := func() int { return strings.Count(live(m), "\n") }
	collapsed := height()
	p.update(keyMsg("ctrl+o"))
	expanded := height()
	p.update(keyMsg("ctrl+o"))
	if expanded <= collapsed || height() != expanded {
		t.Fatalf("heights collapsed %d, expanded %d, collapsed again %d: want the expanded height kept", collapsed, expanded, height())
	}
	p.feed(subStart(at(1), "a1", "c1", "explore", "Look around", false), subDone(at(2), "a1", "c1", 1, "ok"), leadText(at(3), "Done."))
	p.update(eventsMsg{Events: []event.Event{ev(event.TurnEnd, at(4), event.LeadID, "", event.TurnEndData{})}})
	if !strings.Contains(p.text(), "Done.") || height() >= expanded {
		t.Errorf("after a print the live region is %d lines, want it to shrink below %d:\n%s", height(), expanded, live(m))
	}
}

func TestWhatIsFinalAtStartIsPrintedBeforeTheFirstFrameAndNeverAgain(t *testing.T) {
	m := New(Config{Backend: &fakeBackend{}, Now: (&clock{now: t0}).Now, Welcome: []string{"WELCOME-LINE"}})
	pre := m.preprint(100, 40)
	if !strings.Contains(pre, "WELCOME-LINE") || strings.Contains(live(m), "WELCOME-LINE") {
		t.Fatalf("preprint %q, live region:\n%s", pre, live(m))
	}
	p := &printer{m: m}
	p.update(sizeMsg(100, 40))
	p.feed(leadText(at(0), "Hello."))
	if strings.Contains(p.text(), "WELCOME-LINE") || !strings.Contains(p.text(), "Hello.") {
		t.Errorf("prints after the start:\n%s", p.text())
	}
}

func TestPrintsAreWrittenInTheTerminalsColourProfile(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 40)
	m.Update(tea.ColorProfileMsg{Profile: colorprofile.ANSI256})
	_, cmd := m.Update(eventsMsg{Events: feedOf(m).through(withToolStarts([]event.Event{
		ev(event.ToolStart, at(0), event.LeadID, "t1", event.ToolStartData{Name: "bash", Input: []byte(`{"command":"ls"}`)}),
		ev(event.ToolComplete, at(1), event.LeadID, "t1", event.ToolCompleteData{Name: "bash", Success: true, Result: "a.go"}),
	}))})
	var raw string
	for _, msg := range cmdMsgs(cmd) {
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Struct && v.NumField() == 1 && v.Field(0).Kind() == reflect.String {
			raw += v.Field(0).String()
		}
	}
	if !strings.Contains(raw, "bash") || strings.Contains(raw, "38;2;") || !strings.Contains(raw, "38;5;") {
		t.Errorf("printed tool call is not in 256 colours: %q", raw)
	}
}
