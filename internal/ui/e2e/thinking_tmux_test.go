//go:build unix

package e2e

import (
	"strings"
	"testing"
)

// With --effort the lead's thinking shows in the real terminal as a dim
// "∴ thinking…" line while it streams, "∴ thought" once the answer
// begins, never inside the answer; ctrl+o shows its text.
func TestTheLeadsThinkingShowsAsALineWhoseTextCtrlOShows(t *testing.T) {
	srv := startServer(t, `
rules:
  - respond:
      thinking: "THOUGHT-MARK weigh the two options one by one before answering the question"
      text: "ANSWER-MARK the second option."
      chunk_delay_ms: 150
`)
	s := launch(t, []string{"ANTHROPIC_API_KEY=test-key"},
		"--provider", "anthropic", "--base-url", shellQuote(srv.URL()), "--model", "test-model", "--effort", "high",
		"--alt-screen") // inline, a finished thought is printed as it was: ctrl+o opens it on the alternate screen
	s.waitFor("Ask anything")
	s.typeLine("which option?")
	s.waitFor("∴ thinking…")
	scr := s.waitFor("ANSWER-MARK the second option.", "∴ thought (ctrl+o to show)")
	if strings.Contains(scr, "THOUGHT-MARK") {
		t.Errorf("the thinking's text shows before ctrl+o:\n%s", scr)
	}
	s.keys("C-o")
	s.waitFor("THOUGHT-MARK weigh the two options")
	if log := srv.Log(); len(log) != 1 || log[0].ThinkingBudget != 16384 {
		t.Errorf("requests %d, the first's thinking budget %d; want one asking for 16384 (high)", len(log), log[0].ThinkingBudget)
	}
}
