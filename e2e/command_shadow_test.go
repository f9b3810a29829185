//go:build unix

package e2e

import (
	"strings"
	"testing"
)

// TestAUsersReviewCommandFileIsRunHeadless: a .claude/commands/review.md
// owns /review in a headless run too (it used to be skipped as a
// built-in's name, with a warning, and "/review" sent as typed).
func TestAUsersReviewCommandFileIsRunHeadless(t *testing.T) {
	srv := server(t, answerOnce)
	ws := workspace(t, map[string]string{".claude/commands/review.md": "---\ndescription: Our review\n---\nReview against CHECKLIST-7 for $ARGUMENTS\n"})
	r := atomic(t, srv, "anthropic", ws, "-p", "/review the store")
	if r.code != 0 || strings.Contains(r.stderr, "skipped command file") {
		t.Fatalf("code %d, stderr %q", r.code, r.stderr)
	}
	log := srv.Log()
	if len(log) != 1 || !strings.Contains(log[0].LastUserText(), "Review against CHECKLIST-7 for the store") {
		t.Fatalf("requests %+v: want one carrying the user's review.md", log)
	}
}
