//go:build unix

package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// history is the pane's whole history and screen.
func (s *screen) history() string { return s.tmux("capture-pane", "-p", "-S", "-", "-t", "main") }

// inOrderOnce fails unless each want occurs exactly once in text, in order.
func inOrderOnce(t *testing.T, text string, want ...string) {
	t.Helper()
	last := -1
	for _, w := range want {
		if n := strings.Count(text, w); n != 1 {
			t.Errorf("%q occurs %d times, want once", w, n)
			continue
		}
		i := strings.Index(text, w)
		if i < last {
			t.Errorf("%q is out of order", w)
		}
		last = i
	}
	if t.Failed() {
		t.Logf("history:\n%s", text)
	}
}

var resumeLine = regexp.MustCompile(`To resume this session: atomic --resume \S+`)

func TestAfterExitThePanesHistoryHoldsTheWholeConversationAndTheResumeCommand(t *testing.T) {
	srv := startServer(t, scenario)
	s := startAtomic(t, srv.URL())
	s.typeLine("please fan out to three agents")
	s.waitFor("● 3 Explore agents finished", "All three agents reported back.")
	s.typeLine("and one more thing")
	s.waitFor("Noted.")
	s.keys("C-d")
	s.waitUntil("atomic to exit", func(string) bool { return s.exited() })
	h := s.history()
	inOrderOnce(t, h, "Atomic ", "❯ please fan out to three agents", "Fanning out to three Explore agents.",
		"● 3 Explore agents finished", "All three agents reported back.", "❯ and one more thing", "Noted.", "To resume this session:")
	if strings.Count(h, "╰ Done") != 3 {
		t.Errorf("want the finished tree's 3 Done rows once each:\n%s", h)
	}
	if !resumeLine.MatchString(h) {
		t.Errorf("no resume command after the transcript:\n%s", h)
	}
	// The input and status line are the last frame, once, the resume
	// command after them.
	if strings.Count(h, "Ask anything") != 1 || strings.Index(h, "Ask anything") > strings.Index(h, "To resume") {
		t.Errorf("the live region is not the one last frame before the resume command:\n%s", h)
	}
}

func TestALongConversationScrollsIntoTheHistoryWithoutDuplicates(t *testing.T) {
	srv := startServer(t, scenario)
	s := startAtomic(t, srv.URL())
	const n = 30 // about 120 lines: three screens of the 40-row pane
	var want []string
	for i := 1; i <= n; i++ {
		p := fmt.Sprintf("note-%02d", i)
		s.typeLine(p)
		want = append(want, "❯ "+p)
		s.waitUntilHistory(p+" answered", func(h string) bool { return strings.Count(h, "Noted.") == i })
	}
	s.tmux("resize-window", "-t", "main", "-x", "90", "-y", "30") // a resize reprints nothing
	s.waitFor("Ask anything")
	s.keys("C-c")
	s.keys("C-c")
	s.waitUntil("atomic to exit", func(string) bool { return s.exited() })
	h := s.history()
	inOrderOnce(t, h, want...)
	if c := strings.Count(h, "Noted."); c != n {
		t.Errorf("%d answers in the history, want %d:\n%s", c, n, h)
	}
	if !resumeLine.MatchString(h) {
		t.Errorf("no resume command:\n%s", h)
	}
}

func TestAnUnsavedSessionPrintsNoResumeCommand(t *testing.T) {
	srv := startServer(t, scenario)
	s := launch(t, []string{"ANTHROPIC_API_KEY=test-key"},
		"--provider", "anthropic", "--base-url", shellQuote(srv.URL()), "--model", "test-model", "--no-session-persistence")
	s.waitFor("Ask anything")
	s.typeLine("hello")
	s.waitFor("Noted.")
	s.keys("C-d")
	s.waitUntil("atomic to exit", func(string) bool { return s.exited() })
	if h := s.history(); !strings.Contains(h, "❯ hello") || strings.Contains(h, "--resume") {
		t.Errorf("history of an unsaved session:\n%s", h)
	}
}

// waitUntilHistory polls the pane's history until ok holds (or 15s pass)
// and returns it.
func (s *screen) waitUntilHistory(what string, ok func(string) bool) string {
	s.t.Helper()
	var h string
	s.waitUntil(what, func(string) bool { h = s.history(); return ok(h) })
	return h
}

// waitForHistory waits until every want is in the pane's history.
func (s *screen) waitForHistory(want ...string) string {
	s.t.Helper()
	return s.waitUntilHistory(fmt.Sprintf("%q in the history", want), func(h string) bool { return showsAll(h, want) })
}
