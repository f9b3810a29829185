//go:build unix

package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestSlashResumeIDContinuesThatSessionInTheSameChat: /resume ID ends the
// chat and opens it again, in the same process and terminal, on the
// chosen session: its conversation and tree are back.
func TestSlashResumeIDContinuesThatSessionInTheSameChat(t *testing.T) {
	launch := relauncher(t)
	s := launch()
	s.waitFor("Ask anything")
	s.typeLine("please fan out to three agents")
	s.waitFor("All three agents reported back.")
	s.keys("C-d")
	s.waitUntil("atomic to exit", func(string) bool { return s.exited() })
	s.kill()

	r := launch()
	r.waitFor("Ask anything")
	r.typeLine("/resume")
	scr := r.waitFor("Sessions of this folder, newest first:", "please fan out to three agents")
	m := regexp.MustCompile(`(atomic-\S+) · \S+ · .* · please fan out to three agents`).FindStringSubmatch(scr)
	if m == nil {
		t.Fatalf("no session id in the listing:\n%s", scr)
	}
	r.typeLine("/resume " + m[1])
	scr = r.waitFor("please fan out to three agents", "● 3 Explore agents finished (ctrl+o to expand)", "Resumed session")
	// The listing stays in the terminal's scrollback above: the chat
	// opened anew if the resumed conversation follows it.
	if strings.LastIndex(scr, "Resumed session") < strings.LastIndex(scr, "Sessions of this folder") || r.exited() {
		t.Fatalf("the chat did not open anew on the session (exited %v):\n%s", r.exited(), scr)
	}
	r.typeLine("/status")
	r.waitFor(m[1])
}
