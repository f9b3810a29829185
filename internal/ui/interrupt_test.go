package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/event"
)

// cutOffAnswer is a lead's answer the user interrupted mid-stream, as the
// runtime and the native loop emit it: the interrupt first, then the
// message's complete carrying the partial text, then the turn's end.
func cutOffAnswer() []event.Event {
	return []event.Event{
		ev(event.MessageDelta, at(1), event.LeadID, "", event.MessageDeltaData{Text: "The handlers live in "}),
		ev(event.MessageDelta, at(1.1), event.LeadID, "", event.MessageDeltaData{Text: "auth/handlers.go and"}),
		interrupt(at(2)),
		ev(event.MessageComplete, at(2.1), event.LeadID, "", event.MessageCompleteData{Text: "The handlers live in auth/handlers.go and", StopReason: event.StopInterrupted}),
		ev(event.TurnEnd, at(2.2), event.LeadID, "", event.TurnEndData{StopReason: event.StopInterrupted}),
		ev(event.Complete, at(2.2), event.LeadID, "", event.CompleteData{IsError: true, Error: "interrupted: the user pressed Esc", Interrupted: true}),
	}
}

func TestEscWhileTheLeadStreamsShowsThePartialAnswerOnceMarkedInterrupted(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 16)
	userAsk(m, "where are the handlers?")
	feedEvents(m, cutOffAnswer()[:2]...)
	press(m, "esc")
	feedEvents(m, cutOffAnswer()[2:]...)
	f := frame(m)
	if n := strings.Count(f, "auth/handlers.go and"); n != 1 {
		t.Errorf("the partial answer shows %d times, want once:\n%s", n, f)
	}
	if !strings.Contains(f, "(interrupted)") {
		t.Errorf("the partial answer is not marked interrupted:\n%s", f)
	}
	golden(t, "interrupted_answer", f)
}

func TestAResumedChatShowsAnInterruptedAnswerOnceAsItWasLive(t *testing.T) {
	live, _, c := newTestModel(t, 80, 16)
	userAsk(live, "where are the handlers?")
	feedEvents(live, cutOffAnswer()...)
	resumed := New(Config{Backend: &fakeBackend{}, Now: c.Now, Past: &Past{
		Events:  cutOffAnswer(),
		Prompts: []PastPrompt{{Text: "where are the handlers?", Time: at(0)}},
	}})
	resumed.Update(tea.WindowSizeMsg{Width: 80, Height: 16})
	got := frame(resumed)
	if n := strings.Count(got, "auth/handlers.go and"); n != 1 {
		t.Errorf("the resumed chat shows the partial answer %d times, want once:\n%s", n, got)
	}
	if diff := cmp.Diff(frame(live), got); diff != "" {
		t.Errorf("resumed frame differs from the live one (-live +resumed):\n%s", diff)
	}
}
