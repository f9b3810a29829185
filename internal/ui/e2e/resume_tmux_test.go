//go:build unix

package e2e

import (
	"strings"
	"testing"
)

// relauncher starts atomic against one loopback server, each time in the
// same home and workspace, so a start finds the sessions of the previous.
func relauncher(t *testing.T) func(args ...string) *screen {
	srv := startServer(t, scenario)
	tmp := t.TempDir()
	return func(args ...string) *screen {
		t.Helper()
		return launchIn(t, tmp, []string{"ANTHROPIC_API_KEY=test-key"}, append([]string{"--provider", "anthropic",
			"--base-url", shellQuote(srv.URL()), "--model", "test-model"}, args...)...)
	}
}

func TestContinueAfterTheTerminalClosedBringsBackTheTranscriptAndTree(t *testing.T) {
	launch := relauncher(t)
	s := launch()
	s.waitFor("Ask anything")
	s.typeLine("please fan out to three agents")
	s.waitFor("● 3 Explore agents finished (ctrl+o to expand)", "All three agents reported back.")
	s.typeLine("start the background job")
	s.waitFor("● Running 1 Explore agent…", "╰ Running in background…", "It is running; I will report when it finishes.")
	s.kill() // the terminal closes mid-run

	r := launch("--continue")
	r.waitFor("please fan out to three agents", "● 3 Explore agents finished (ctrl+o to expand)", "All three agents reported back.",
		"start the background job", "It is running; I will report when it finishes.",
		"● 1 Explore agent finished · 1 interrupted", "╰ Interrupted", "Resumed session")
	r.typeLine("please fan out to three agents again")
	r.waitFor("● Running 3 Explore agents…")
	r.waitFor("All three agents reported back.")
}

func TestResumeWithoutAnIDPicksASessionOfThisDirectory(t *testing.T) {
	launch := relauncher(t)
	s := launch()
	s.waitFor("Ask anything")
	s.typeLine("please fan out to three agents")
	s.waitFor("All three agents reported back.")
	s.keys("C-d")
	s.waitUntil("atomic to exit", func(string) bool { return s.exited() })
	s.kill()
	s = launch()
	s.waitFor("Ask anything")
	s.typeLine("start the background job")
	s.waitFor("It is running; I will report when it finishes.")
	s.kill()

	r := launch("--resume")
	r.waitFor("Resume a session", "› start the background job", "1 agent · interrupted", "  please fan out to three agents", "3 agents · completed")
	r.keys("Down")
	r.waitFor("› please fan out to three agents")
	r.keys("Enter")
	scr := r.waitFor("please fan out to three agents", "● 3 Explore agents finished (ctrl+o to expand)", "Resumed session")
	if strings.Contains(scr, "start the background job") {
		t.Fatalf("the other session's prompt is shown:\n%s", scr)
	}
}
