//go:build unix

package e2e

import (
	"testing"
)

// Claude Code's -c and Codex's `atomic resume --last` reopen the last
// session of the folder in the chat, as --continue does.
func TestClaudesDashCAndCodexsResumeLastReopenTheLastSession(t *testing.T) {
	srv := startServer(t, scenario)
	tmp := t.TempDir()
	model := []string{"--provider", "anthropic", "--base-url", shellQuote(srv.URL()), "--model", "test-model"}
	env := []string{"ANTHROPIC_API_KEY=test-key"}
	s := launchIn(t, tmp, env, model...)
	s.waitFor("Ask anything")
	s.typeLine("please fan out to three agents")
	s.waitFor("All three agents reported back.")
	s.keys("C-d")
	s.waitUntil("atomic to exit", func(string) bool { return s.exited() })
	s.kill()

	for _, args := range [][]string{append([]string{"-c"}, model...), append([]string{"resume", "--last"}, model...)} {
		r := launchIn(t, tmp, env, args...)
		r.waitFor("please fan out to three agents", "● 3 Explore agents finished (ctrl+o to expand)", "All three agents reported back.", "Resumed session")
		r.keys("C-d")
		r.waitUntil("atomic to exit", func(string) bool { return r.exited() })
		r.kill()
	}
}
