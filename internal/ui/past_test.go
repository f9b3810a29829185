package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/event"
)

// finishedRun is a run's events: three agents, one failed, an answer.
func finishedRun() []event.Event {
	return withToolStarts([]event.Event{
		taskStart(at(0.1), "c1", "explore", "Find the auth handlers", ""),
		taskStart(at(0.1), "c3", "general-purpose", "Run the slow test suite", "background"),
		subStart(at(0.2), "explore-1", "c1", "explore", "Find the auth handlers", false),
		subStart(at(0.2), "general-purpose-1", "c3", "general-purpose", "Run the slow test suite", true),
		taskReturn(at(0.3), "c3", "Started background task general-purpose-1", true),
		subUpdate(at(5), "explore-1", "c1", "read auth.go", 9),
		subDone(at(31), "explore-1", "c1", 9, "Found 3 handlers."),
		taskReturn(at(31), "c1", "Found 3 handlers.", true),
		subFailed(at(62), "general-purpose-1", "c3", 3, "bash exited 1: 2 tests failed"),
		ev(event.MessageDelta, at(62.5), event.LeadID, "", event.MessageDeltaData{Text: "Three handlers; "}),
		subUpdate(at(62.6), "general-purpose-1", "c3", "late progress", 3),
		ev(event.MessageDelta, at(62.7), event.LeadID, "", event.MessageDeltaData{Text: "the suite "}),
		ev(event.MessageDelta, at(62.8), event.LeadID, "", event.MessageDeltaData{Text: "fails."}),
		ev(event.TurnEnd, at(63), event.LeadID, "", event.TurnEndData{StopReason: "end_turn"}),
		ev(event.MessageDelta, at(64), event.LeadID, "", event.MessageDeltaData{Text: "A second answer, "}),
		ev(event.MessageDelta, at(64.1), event.LeadID, "", event.MessageDeltaData{Text: "discarded", Discard: true}),
		ev(event.MessageDelta, at(64.2), event.LeadID, "", event.MessageDeltaData{Text: " then streamed again"}),
		ev(event.TurnEnd, at(65), event.LeadID, "", event.TurnEndData{StopReason: "end_turn"}),
		ev(event.Complete, at(65), event.LeadID, "", event.CompleteData{Result: "A second answer, then streamed again"}),
	})
}

func TestAResumedChatShowsTheTranscriptAndTreesAsTheyWere(t *testing.T) {
	live, _, c := newTestModel(t, 100, 30)
	userAsk(live, "find the handlers and run the tests")
	feedEvents(live, finishedRun()...)
	c.Set(at(500))
	want := frame(live)
	for _, s := range []string{"find the handlers and run the tests", "Three handlers; the suite fails.", "discarded then streamed again", "Explore · Find the auth handlers"} {
		if !strings.Contains(want, s) {
			t.Fatalf("the live frame lacks %q:\n%s", s, want)
		}
	}

	resumed := New(Config{Backend: &fakeBackend{}, Now: c.Now, Past: &Past{
		Events:  finishedRun(),
		Prompts: []PastPrompt{{Text: "find the handlers and run the tests", Time: at(0)}},
	}})
	resumed.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if diff := cmp.Diff(want, frame(resumed)); diff != "" {
		t.Fatalf("resumed frame differs from the live one (-live +resumed):\n%s", diff)
	}
}

func TestAResumedChatShowsNothingOfTheDeadProcessStillRunning(t *testing.T) {
	_, _, c := newTestModel(t, 100, 30)
	m := New(Config{Backend: &fakeBackend{}, Now: c.Now, Past: &Past{
		Events: []event.Event{
			ev(event.ToolStart, at(1), event.LeadID, "b1", event.ToolStartData{Name: "bash", Input: []byte(`{"command":"sleep 100"}`)}),
		},
		Prompts: []PastPrompt{{Text: "sleep a while", Time: at(0)}},
		Note:    "Resumed session s1",
	}})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	c.Set(at(9))
	got := frame(m)
	if m.busy || !strings.Contains(got, "interrupted: Atomic exited before it returned") || !strings.Contains(got, "Resumed session s1") {
		t.Fatalf("busy %v; frame:\n%s\nwant the cut bash call shown interrupted and the resume noted", m.busy, got)
	}
}
