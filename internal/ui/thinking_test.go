package ui

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

func thinkingDelta(agent, text string) event.Event {
	return ev(event.ThinkingDelta, at(0), agent, "", event.ThinkingDeltaData{Text: text})
}

func TestGoldenLeadThinkingIsADimLineThatCtrlOOpens(t *testing.T) {
	m, _, _ := newTestModel(t, 70, 14)
	m.cfg.AltScreen = true // inline, a finished thought is printed as it was
	userAsk(m, "Why does the build fail?")
	feedEvents(m,
		thinkingDelta(event.LeadID, "The error names go.sum, so "),
		thinkingDelta(event.LeadID, "a module was added without tidying.\nCheck go.mod first."),
		// A sub-agent's thinking stays out of the lead's transcript.
		thinkingDelta("explore-1", "SUB-AGENT THOUGHT"),
	)
	golden(t, "thinking_live", frame(m))

	feedEvents(m,
		ev(event.MessageDelta, at(1), event.LeadID, "", event.MessageDeltaData{Text: "Run `go mod tidy`."}),
		ev(event.MessageComplete, at(1), event.LeadID, "", event.MessageCompleteData{Text: "Run `go mod tidy`.", StopReason: "end_turn"}),
		ev(event.TurnEnd, at(1), event.LeadID, "", event.TurnEndData{StopReason: "end_turn", NumTurns: 1}),
	)
	golden(t, "thinking_done", frame(m))
	press(m, "ctrl+o")
	golden(t, "thinking_expanded", frame(m))
	if f := frame(m); strings.Contains(f, "SUB-AGENT") {
		t.Errorf("a sub-agent's thinking reached the transcript:\n%s", f)
	}
}

func TestARetriedTurnsThinkingStartsOver(t *testing.T) {
	m, _, _ := newTestModel(t, 70, 14)
	feedEvents(m,
		thinkingDelta(event.LeadID, "FIRST ATTEMPT"),
		ev(event.ThinkingDelta, at(0), event.LeadID, "", event.ThinkingDeltaData{Discard: true}),
		thinkingDelta(event.LeadID, "second attempt"),
	)
	press(m, "ctrl+o")
	f := frame(m)
	if strings.Contains(f, "FIRST ATTEMPT") || !strings.Contains(f, "second attempt") || strings.Count(f, "∴") != 1 {
		t.Errorf("after a retry:\n%s", f)
	}
}
