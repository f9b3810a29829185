package runtime

import (
	"sync"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// journal records what a Runtime tells its Journal, in one order.
type journal struct {
	mu      sync.Mutex
	log     []string // "prompt:…", "event:type", "history:agent"
	history map[string][]provider.Message
}

func (j *journal) add(s string) {
	j.mu.Lock()
	j.log = append(j.log, s)
	j.mu.Unlock()
}

func (j *journal) Emit(e event.Event) { j.add("event:" + string(e.Type)) }
func (j *journal) Prompt(text string) { j.add("prompt:" + text) }
func (j *journal) History(agentID string, msgs []provider.Message) {
	j.mu.Lock()
	if j.history == nil {
		j.history = map[string][]provider.Message{}
	}
	j.history[agentID] = msgs
	j.mu.Unlock()
	j.add("history:" + agentID)
}

func TestJournalGetsThePromptBeforeAnyEventAndTheLeadsHistoryAfterItsTurn(t *testing.T) {
	j := &journal{}
	h := start(t, `rules: [{respond: {text: "hello there"}}]`, Config{Journal: j})
	h.rt.Submit("say hello")
	h.await(t)
	h.stop()
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.log) < 3 || j.log[0] != "prompt:say hello" || j.log[1] != "event:session.start" {
		t.Fatalf("journal %q; want the prompt first, then the lead's session.start", j.log)
	}
	hist, turnEnd := -1, -1
	for i, s := range j.log {
		switch s {
		case "history:lead":
			hist = i
		case "event:turn.end":
			turnEnd = i
		}
	}
	if hist < 0 || turnEnd < hist {
		t.Fatalf("journal %q; want the lead's history saved before its turn.end", j.log)
	}
	lead := j.history["lead"]
	if len(lead) != 2 || lead[0].Parts[0].Text != "say hello" || lead[1].Parts[0].Text != "hello there" {
		t.Fatalf("saved history %+v; want the prompt and the answer", lead)
	}
}

func TestJournalGetsEachSubagentsOwnHistory(t *testing.T) {
	j := &journal{}
	h := start(t, `
rules:
  - {name: final, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "done"}}
  - {name: fanout, match: {system_contains: "You are Atomic"}, respond: {tool_calls: [{name: task, input: {description: "look around", prompt: "SUB-TASK look", subagent_type: explore}}]}}
  - {name: sub, respond: {text: "found it"}}
`, Config{Journal: j})
	h.rt.Submit("go")
	h.await(t)
	h.stop()
	j.mu.Lock()
	defer j.mu.Unlock()
	sub := j.history["explore-1"]
	if len(sub) != 2 || sub[0].Parts[0].Text != "SUB-TASK look" || sub[1].Parts[0].Text != "found it" {
		t.Fatalf("explore-1's saved history %+v; want its task and its answer", sub)
	}
	if lead := j.history["lead"]; len(lead) != 4 {
		t.Fatalf("lead's saved history has %d messages; want prompt, task call, task result, answer", len(lead))
	}
}
