package claudecode

import (
	"slices"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

// messages replays the deltas of each agent as a reader of the stream
// would (a Discard voids what its message streamed so far) and checks
// that every message.complete carries exactly the text its deltas spelled:
// each text reaches the screen once. It returns the completed texts and
// the number of deltas each took, per agent.
func messages(t *testing.T, evs []event.Event) (texts map[string][]string, deltas map[string][]int) {
	t.Helper()
	texts, deltas = map[string][]string{}, map[string][]int{}
	shown, pieces := map[string]string{}, map[string]int{}
	for i, e := range evs {
		switch d := e.Data.(type) {
		case event.MessageDeltaData:
			if d.Discard {
				shown[e.AgentID], pieces[e.AgentID] = "", 0
			}
			if d.Text != "" {
				shown[e.AgentID] += d.Text
				pieces[e.AgentID]++
			}
		case event.MessageCompleteData:
			if shown[e.AgentID] != d.Text {
				t.Errorf("event %d: %s's message.complete %q, but its deltas spelled %q", i, e.AgentID, d.Text, shown[e.AgentID])
			}
			texts[e.AgentID] = append(texts[e.AgentID], d.Text)
			deltas[e.AgentID] = append(deltas[e.AgentID], pieces[e.AgentID])
			shown[e.AgentID], pieces[e.AgentID] = "", 0
		}
	}
	for id, s := range shown {
		if s != "" {
			t.Errorf("%s streamed %q that no message.complete ended", id, s)
		}
	}
	return texts, deltas
}

func TestReplayEveryCaptureSpellsEachMessageOnceInItsDeltas(t *testing.T) {
	for _, f := range []string{"claude-subagents.jsonl", "claude-subagents-permission.jsonl",
		"claude-partial.jsonl", "claude-midturn.jsonl", "claude-slowanswer.jsonl"} {
		t.Run(f, func(t *testing.T) {
			r := replay(t, f, nil)
			if texts, _ := messages(t, r.events); len(texts["lead"]) == 0 {
				t.Errorf("no message of the lead: %v", texts)
			}
		})
	}
}

func TestReplayPartialMessagesStreamTheLeadsTextInPiecesAndTheResultIsExact(t *testing.T) {
	r := replay(t, "claude-partial.jsonl", nil)
	texts, deltas := messages(t, r.events)
	want := []string{"Starting one sub-agent now.", "The sub-agent finished; this final answer arrives in several pieces."}
	if !slices.Equal(texts["lead"], want) {
		t.Fatalf("lead messages = %q, want %q", texts["lead"], want)
	}
	for i, n := range deltas["lead"] {
		if n < 2 {
			t.Errorf("lead message %d came in %d delta(s), want it streamed in pieces", i, n)
		}
	}
	if len(r.results) != 1 || r.results[0].Text != want[1] {
		t.Errorf("results = %+v, want one with the final answer", r.results)
	}
	// The sub-agent's own messages (not streamed by this CLI) still come
	// through its assistant lines, once.
	for id, ts := range texts {
		if id != "lead" && len(ts) > 0 && strings.Count(strings.Join(ts, "|"), ts[0]) != 1 {
			t.Errorf("%s messages %q repeat", id, ts)
		}
	}
}

// Lines of the partial capture re-addressed to a sub-agent, as the CLI
// writes a sub-agent's stream_events (parent_tool_use_id: its Agent call):
// its text streams as its own, and its assistant line does not repeat it.
func TestStreamEventsOfASubagentStreamAsItsOwnMessage(t *testing.T) {
	const parent = `"parent_tool_use_id":"toolu_a"`
	got := feedLines(t,
		`{"type":"assistant","message":{"id":"m0","content":[{"type":"tool_use","id":"toolu_a","name":"Agent","input":{"description":"d","prompt":"p","subagent_type":"general-purpose"}}]},"parent_tool_use_id":null}`,
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}},`+parent+`}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"done "}},`+parent+`}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ALPHA"}},`+parent+`}`,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"done ALPHA"}]},`+parent+`}`,
	)
	texts, deltas := messages(t, got)
	if !slices.Equal(texts["general-purpose-1"], []string{"done ALPHA"}) || !slices.Equal(deltas["general-purpose-1"], []int{2}) {
		t.Errorf("sub-agent messages %q in %v deltas, want one in 2", texts["general-purpose-1"], deltas["general-purpose-1"])
	}
	if len(texts["lead"]) != 0 {
		t.Errorf("the lead got %q", texts["lead"])
	}
}

func TestStreamedTextTheAssistantLineContradictsIsVoidedAndSentAnew(t *testing.T) {
	got := feedLines(t,
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m1"}},"parent_tool_use_id":null}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"draft"}},"parent_tool_use_id":null}`,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"final"}]},"parent_tool_use_id":null}`,
		// A retried request: the first message never got its assistant line.
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m2"}},"parent_tool_use_id":null}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lost"}},"parent_tool_use_id":null}`,
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"m3"}},"parent_tool_use_id":null}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"kept"}},"parent_tool_use_id":null}`,
		`{"type":"assistant","message":{"id":"m3","content":[{"type":"text","text":"kept and more"}]},"parent_tool_use_id":null}`,
	)
	texts, _ := messages(t, got)
	if want := []string{"final", "kept and more"}; !slices.Equal(texts["lead"], want) {
		t.Errorf("lead messages %q, want %q", texts["lead"], want)
	}
}
