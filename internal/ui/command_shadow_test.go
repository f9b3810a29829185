package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/commands"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// A user's .claude/commands/review.md takes /review from the built-in, as
// a user's file should own its name; /help and the / menu say so.
func TestAUsersReviewCommandFileWinsOverTheBuiltInAndHelpSaysItHidesIt(t *testing.T) {
	m, b, _ := newProjectModel(t, map[string]string{
		".claude/commands/review.md": "---\ndescription: Our review checklist\n---\nReview against CHECKLIST-7 $ARGUMENTS",
	})
	userAsk(m, "/review auth")
	if len(b.submitted) != 1 || b.submitted[0] != "Review against CHECKLIST-7 auth" {
		t.Fatalf("submitted %q, want the user's review.md expanded", b.submitted)
	}
	userAsk(m, "/help")
	f := frame(m)
	for _, want := range []string{"[hidden by your /review command file]", "Our review checklist (project) · hides the built-in /review"} {
		if !strings.Contains(f, want) {
			t.Errorf("/help lacks %q:\n%s", want, f)
		}
	}
	items := m.commandSuggestions("/rev")
	if len(items) != 1 || !strings.Contains(items[0].detail, "Our review checklist") || !strings.Contains(items[0].detail, "hides the built-in /review") {
		t.Errorf("the / menu for /rev: %+v, want only the user's command, saying it hides the built-in", items)
	}
}

// Without a file of its name the built-in /review runs, and the names a
// user needs to learn and to leave stay the built-ins' whatever the files.
func TestTheBuiltInReviewRunsWithoutAFileAndHelpAndQuitCannotBeTaken(t *testing.T) {
	m, b, _ := newProjectModel(t, nil)
	userAsk(m, "/review")
	if len(b.submitted) != 0 || strings.Contains(frame(m), "Unknown command") {
		t.Fatalf("the built-in /review did not run: submitted %q\n%s", b.submitted, frame(m))
	}
	if items := m.commandSuggestions("/rev"); len(items) != 1 || strings.Contains(items[0].detail, "hides") {
		t.Errorf("the / menu for /rev: %+v, want the built-in alone", items)
	}
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{".claude/commands/help.md": "my help", ".claude/commands/exit.md": "my exit"})
	cmds, problems := commands.Load(commands.Dirs(root, "", ""), FixedCommands())
	if len(problems) != 2 || !strings.Contains(fmt.Sprint(problems), "/help is a built-in command") {
		t.Fatalf("problems %v, want help.md and exit.md skipped", problems)
	}
	b2 := &fakeBackend{}
	m2 := New(Config{Backend: b2, Commands: cmds})
	m2.Update(tea.WindowSizeMsg{Width: 400, Height: 30})
	userAsk(m2, "/help")
	if len(b2.submitted) != 0 || !strings.Contains(frame(m2), "/quit, /exit") {
		t.Errorf("a help.md took /help: submitted %q", b2.submitted)
	}
}
