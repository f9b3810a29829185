package runtime

import (
	"slices"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// A stored session whose background results were held for a next prompt
// that never came gives the lead the ones no prompt took, with the next
// prompt, once; one taken, or cleared by /clear, is not given again.
func TestAResumedSessionGivesTheLeadItsUnclaimedHeldResultsWithTheNextPromptOnce(t *testing.T) {
	held := func(id, text string, taken bool) event.Event {
		return event.Event{Type: event.MessageHeld, SessionID: "s-old", AgentID: event.LeadID, Data: event.MessageHeldData{ID: id, Text: text, Taken: taken}}
	}
	res := &Resume{
		Events: []event.Event{
			held("general-purpose-1", "<task-notification>CLEARED result</task-notification>", false),
			{Type: event.Reset, SessionID: "s-old", AgentID: event.LeadID, Data: event.ResetData{Reason: "/clear"}},
			held("general-purpose-2", "<task-notification>TAKEN result</task-notification>", false),
			held("general-purpose-2", "", true),
			held("general-purpose-3", "<task-notification>HELD result 42</task-notification>", false),
			held("shell-1", "<shell-notification>HELD shell ended</shell-notification>", false),
		},
		History: []provider.Message{
			{Role: provider.RoleUser, Parts: []provider.Part{{Text: "start it"}}},
			{Role: provider.RoleAssistant, Parts: []provider.Part{{Text: "started"}}},
		},
	}
	h, srv := startWith(t, `
rules:
  - {name: given, match: {last_user_contains: "what did it say?"}, respond: {text: "it said 42"}}
  - {name: other, respond: {text: "ok"}}
`, Config{SessionID: "s-old", Resume: res, HoldWakes: true})
	h.rt.Submit("what did it say?")
	if out := h.await(t); out.Err != nil || out.Result != "it said 42" {
		t.Fatalf("outcome %+v", out)
	}
	h.rt.Submit("anything else?")
	if out := h.await(t); out.Err != nil || out.Result != "ok" {
		t.Fatalf("second outcome %+v", out)
	}
	log := srv.Log()
	first := log[0].Messages[len(log[0].Messages)-1].Text
	if !strings.Contains(first, "HELD result 42") || !strings.Contains(first, "HELD shell ended") || !strings.Contains(first, "what did it say?") {
		t.Errorf("the next prompt's message %q should carry the prompt and both unclaimed results", first)
	}
	for _, gone := range []string{"CLEARED", "TAKEN"} {
		if strings.Contains(first, gone) {
			t.Errorf("the next prompt's message %q carries the %s result", first, gone)
		}
	}
	if again := log[len(log)-1].Messages[len(log[len(log)-1].Messages)-1].Text; strings.Contains(again, "HELD") {
		t.Errorf("the prompt after carries a held result again: %q", again)
	}
	if left := heldOf(append(res.Events, h.events()...)); len(left) != 0 {
		t.Errorf("after the prompt the store would still hold %+v; a later load would give them again", left)
	}
}

// A held shell end the lead reads with bash_output is recorded taken when
// it reads it, not only when a later request empties the inbox: a session
// that ends before that request is not given it again when loaded.
func TestAHeldShellEndReadWithBashOutputIsRecordedTakenWhenRead(t *testing.T) {
	h := start(t, `
rules:
  - {name: final, match: {tool_result_contains: "SHELL-DONE"}, respond: {text: "read it"}}
  - {name: read, match: {has_tool_results: true}, respond: {delay_ms: 800, tool_calls: [{name: bash_output, input: {shell_id: shell-1}}]}}
  - {name: spawn, respond: {tool_calls: [{name: bash, input: {command: "echo SHELL-DONE", run_in_background: true}}]}}
`, Config{HoldWakes: true})
	h.rt.Submit("run it")
	if out := h.await(t); out.Err != nil || out.Result != "read it" {
		t.Fatalf("outcome %+v", out)
	}
	evs := h.events()
	read := slices.IndexFunc(evs, func(e event.Event) bool {
		d, ok := event.Payload[event.ToolCompleteData](e.Data)
		return e.Type == event.ToolComplete && ok && d.Name == "bash_output"
	})
	if read < 0 {
		t.Fatal("no bash_output call completed")
	}
	held := heldOf(evs[:read+1])
	if !slices.ContainsFunc(evs[:read], func(e event.Event) bool {
		d, ok := event.Payload[event.MessageHeldData](e.Data)
		return e.Type == event.MessageHeld && ok && d.ID == "shell-1" && !d.Taken
	}) {
		t.Fatal("the shell's end was never held for the lead")
	}
	if len(held) != 0 {
		t.Errorf("once bash_output had read the end the store would still hold %+v; a load then would give it again", held)
	}
}
