package ui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/event"
)

// storedEvents decodes events as the store keeps them (JSON lines).
func storedEvents(t *testing.T, lines ...string) []event.Event {
	t.Helper()
	var out []event.Event
	for _, l := range lines {
		var raw event.Raw
		if err := json.Unmarshal([]byte(l), &raw); err != nil {
			t.Fatal(err)
		}
		out = append(out, raw.Event())
	}
	return out
}

func TestAContinuedSessionShowsItsLastRequestsContextFromTheStart(t *testing.T) {
	evs := storedEvents(t,
		`{"type":"usage.update","time":"2026-11-22T10:00:01Z","session_id":"s","agent_id":"lead","data":{"usage":{"input_tokens":58,"output_tokens":6,"cache_read_input_tokens":2001,"cache_creation_input_tokens":12},"total":{"input_tokens":58,"output_tokens":6,"cache_read_input_tokens":2001,"cache_creation_input_tokens":12},"context_tokens":2077}}`,
		`{"type":"complete","time":"2026-11-22T10:00:01Z","session_id":"s","agent_id":"lead","data":{"result":"Hi","num_turns":1,"usage":{"input_tokens":58,"output_tokens":6,"cache_read_input_tokens":2001,"cache_creation_input_tokens":12}}}`,
		`{"type":"usage.update","time":"2026-11-22T10:00:03Z","session_id":"s","agent_id":"lead","data":{"usage":{"input_tokens":141,"output_tokens":12,"cache_read_input_tokens":4014,"cache_creation_input_tokens":34},"total":{"input_tokens":141,"output_tokens":12,"cache_read_input_tokens":4014,"cache_creation_input_tokens":34},"context_tokens":2124}}`,
		`{"type":"complete","time":"2026-11-22T10:00:03Z","session_id":"s","agent_id":"lead","data":{"result":"Hi","num_turns":1,"usage":{"input_tokens":141,"output_tokens":12,"cache_read_input_tokens":4014,"cache_creation_input_tokens":34}}}`,
	)
	c := &clock{now: at(10)}
	m := New(Config{Backend: &fakeBackend{}, Now: c.Now, Past: &Past{Events: evs}})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
	f := frame(m)
	if !strings.Contains(f, "ctx 2.1k") {
		t.Errorf("the status line does not show the last request's context (2,124 tokens):\n%s", f)
	}
}
