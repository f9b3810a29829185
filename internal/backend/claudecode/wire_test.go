package claudecode

import (
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

// feedLines runs lines through a fresh translator and returns its events.
func feedLines(t *testing.T, lines ...string) []event.Event {
	t.Helper()
	var got []event.Event
	tr := newTranslator("s1", "lead", event.SinkFunc(func(e event.Event) { got = append(got, e) }), nil)
	for _, l := range lines {
		if _, err := tr.feed([]byte(l)); err != nil {
			t.Fatalf("feed %s: %v", l, err)
		}
	}
	return got
}

// The forms a struct cannot hold take the slow path of decodeLine; each
// must come out as the common form does.
func TestFeedReadsTheRarerFormsOfPolymorphicFields(t *testing.T) {
	bashCall := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":null}`
	tests := []struct {
		name  string
		lines []string
		want  event.Type
		check func(t *testing.T, e event.Event)
	}{
		{
			name:  "message content as a string is its text",
			lines: []string{`{"type":"assistant","message":{"content":"plain answer","stop_reason":"end_turn"}}`},
			want:  event.MessageComplete,
			check: func(t *testing.T, e event.Event) {
				if d := e.Data.(event.MessageCompleteData); d.Text != "plain answer" || d.StopReason != "end_turn" {
					t.Errorf("message.complete = %+v, want the string content and its stop reason", d)
				}
			},
		},
		{
			name: "a string tool_use_result of an interrupted call cancels it",
			lines: []string{bashCall, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"stopped"}]},` +
				`"tool_use_result":"User rejected tool use"}`},
			want: event.ToolComplete,
			check: func(t *testing.T, e event.Event) {
				if d := e.Data.(event.ToolCompleteData); !d.Cancelled || d.Success {
					t.Errorf("tool.complete = %+v, want cancelled", d)
				}
			},
		},
		{
			name: "another tool's tool_use_result shape leaves the result intact",
			lines: []string{bashCall, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a.go"}]}]},` +
				`"tool_use_result":{"status":200,"content":{"files":["a.go"]},"agentId":7}}`},
			want: event.ToolComplete,
			check: func(t *testing.T, e event.Event) {
				if d := e.Data.(event.ToolCompleteData); !d.Success || d.Result != "a.go" || d.Name != "bash" {
					t.Errorf("tool.complete = %+v, want bash succeeding with a.go", d)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var found bool
			for _, e := range feedLines(t, tt.lines...) {
				if e.Type == tt.want {
					found = true
					tt.check(t, e)
				}
			}
			if !found {
				t.Fatalf("no %s event", tt.want)
			}
		})
	}
}

func TestFeedSkipsKindsItDoesNotReadWithoutDecodingThem(t *testing.T) {
	// Truncated bodies: decoding them would fail, so no error shows they
	// were never decoded.
	for _, l := range []string{
		`{"type":"control_response","response":{"subtype":"success","response":{"commands":[`,
		`{"type": "keep_alive", "x": [`,
		`{"type":"system","subtype":"background_tasks_changed","tasks":[`,
		`{"type":"stream_event","event":{"type":"content_block_stop","index":`,
	} {
		if got := feedLines(t, l); len(got) != 0 {
			t.Errorf("%s: %d events, want none", l, len(got))
		}
	}
	// A kind the translator reads is still decoded, and its damage named.
	tr := newTranslator("s1", "lead", event.Discard, nil)
	for _, l := range []string{
		`{"type":"system","subtype":"task_started","task_id":`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":`,
	} {
		if _, err := tr.feed([]byte(l)); err == nil {
			t.Errorf("a truncated line was accepted: %s", l)
		}
	}
}
