package e2e

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

// thinkingFanOut: the lead thinks, starts two sub-agents (one of a type
// whose file says effort: high), thinks again over their results and
// answers; each sub-agent thinks and answers.
const thinkingFanOut = `
rules:
  - name: lead-done
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond: {text: "Both reported.", thinking: "LEAD-THOUGHT-2 both are in."}
  - name: lead-fan
    match: {system_contains: "You are Atomic"}
    respond:
      thinking: "LEAD-THOUGHT-1 two helpers."
      tool_calls:
        - {name: task, input: {description: plain, prompt: PLAIN}}
        - {name: task, input: {description: deep, prompt: DEEP, subagent_type: deep}}
  - {name: plain, match: {first_user_contains: PLAIN}, respond: {text: "plain done", thinking: "SUB-THOUGHT plain."}}
  - {name: deep, match: {first_user_contains: DEEP}, respond: {text: "deep done", thinking: "SUB-THOUGHT deep."}}
`

func TestEffortReachesEveryAgentAndThinkingIsStreamedApartFromTheAnswer(t *testing.T) {
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			srv := server(t, thinkingFanOut)
			ws := workspace(t, map[string]string{".atomic/agents/deep.md": "---\nname: deep\ndescription: Thinks hard.\neffort: high\n---\nThink hard.\n"})
			r := atomic(t, srv, prov, ws, "--effort", "low", "--output-format", "stream-json", "-p", "go")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			byRule := map[string][]string{}
			for _, e := range srv.Log() {
				if e.Status != 200 {
					t.Fatalf("request %d (%s) refused: %d %s", e.Seq, e.Rule, e.Status, e.Outcome)
				}
				level := e.ReasoningEffort
				if prov == "anthropic" {
					level = map[int]string{2048: "low", 16384: "high"}[e.ThinkingBudget]
				}
				byRule[e.Rule] = append(byRule[e.Rule], level)
				if e.Rule == "lead-done" && prov == "anthropic" && e.ThinkingReturned == 0 {
					t.Errorf("the lead's tool loop did not send its thinking back")
				}
			}
			want := map[string]string{"lead-fan": "low", "lead-done": "low", "plain": "low", "deep": "high"}
			for rule, level := range want {
				if got := byRule[rule]; len(got) != 1 || got[0] != level {
					t.Errorf("%s thought at %v, want [%s]", rule, got, level)
				}
			}
			thought := map[string]string{}
			for _, e := range events(t, r.stdout) {
				switch e.Type {
				case event.ThinkingDelta:
					thought[e.AgentID] += data[event.ThinkingDeltaData](t, e).Text
				case event.MessageDelta, event.MessageComplete:
					if strings.Contains(string(e.Data), "THOUGHT") {
						t.Errorf("%s of %s carries thinking: %s", e.Type, e.AgentID, e.Data)
					}
				}
			}
			if prov == "openai" {
				// Chat Completions streams no reasoning text.
				if len(thought) != 0 {
					t.Errorf("thinking.delta from Chat Completions: %v", thought)
				}
				return
			}
			if thought[event.LeadID] != "LEAD-THOUGHT-1 two helpers.LEAD-THOUGHT-2 both are in." ||
				thought["general-purpose-1"] != "SUB-THOUGHT plain." || thought["deep-1"] != "SUB-THOUGHT deep." {
				t.Errorf("thinking.delta by agent = %q", thought)
			}
		})
	}
}
