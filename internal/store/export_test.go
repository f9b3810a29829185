package store

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// The export is the whole conversation: the user's prompts among the
// events, each before what came after it, and the messages delivered to
// the lead (a background task's result) as their events.
func TestExportPlacesEachPromptAmongTheEventsBeforeWhatCameAfterIt(t *testing.T) {
	path := dbPath(t)
	var w warnings
	r := Record(path, Options{}, meta("s1"), w.warn)
	now := func() time.Time { time.Sleep(2 * time.Millisecond); return time.Now() }
	emit := func(typ event.Type, data any) {
		r.Emit(event.Event{Type: typ, Time: now(), SessionID: "s1", AgentID: event.LeadID, Data: data})
	}
	r.Prompt("first question")
	emit(event.SessionStart, event.SessionStartData{Model: "m"})
	emit(event.MessageComplete, event.MessageCompleteData{Text: "first answer"})
	now()
	r.Prompt("second question")
	emit(event.MessageDelivered, event.MessageDeliveredData{Text: "<task-notification>done</task-notification>"})
	emit(event.MessageComplete, event.MessageCompleteData{Text: "second answer"})
	now()
	r.Prompt("a prompt nothing answered")
	r.Close()
	if got := w.all(); len(got) != 0 {
		t.Fatalf("warnings: %v", got)
	}
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var got []string
	err = st.Export(context.Background(), "s1", func(line []byte) error {
		var e struct {
			Type string `json:"type"`
			Data struct {
				Text string `json:"text"`
			} `json:"data"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("line %s: %v", line, err)
		}
		got = append(got, e.Type+" "+e.Data.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user.prompt first question", "session.start ", "message.complete first answer",
		"user.prompt second question", "message.delivered <task-notification>done</task-notification>",
		"message.complete second answer", "user.prompt a prompt nothing answered"}
	if !slices.Equal(got, want) {
		t.Errorf("export:\n%q\nwant\n%q", got, want)
	}
}
