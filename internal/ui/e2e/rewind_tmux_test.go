//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// rewindScenario: "write notes" has the lead create notes.txt; "fan out and
// merge" has one sub-agent change shared.txt in place and an isolated one
// change other.txt in its worktree, which the lead merges; "what do you
// remember" answers from the lead's conversation.
const rewindScenario = `
rules:
  - {name: sub-done, match: {system_contains: "You are a sub-agent", first_user_contains: SUB-EDIT, has_tool_results: true}, respond: {text: "sub done"}}
  - {name: sub-edit, match: {system_contains: "You are a sub-agent", first_user_contains: SUB-EDIT}, respond: {tool_calls: [{name: write, input: {file_path: shared.txt, content: "sub\n"}}]}}
  - {name: wt-done, match: {system_contains: "You are a sub-agent", first_user_contains: WT-EDIT, has_tool_results: true}, respond: {text: "wt done"}}
  - {name: wt-edit, match: {system_contains: "You are a sub-agent", first_user_contains: WT-EDIT}, respond: {tool_calls: [{name: write, input: {file_path: other.txt, content: "wt\n"}}]}}
  - {name: notes-done, match: {system_contains: "You are Atomic", last_user_contains: "write notes", has_tool_results: true}, respond: {text: "Notes written."}}
  - {name: notes, match: {system_contains: "You are Atomic", last_user_contains: "write notes"}, respond: {tool_calls: [{name: write, input: {file_path: notes.txt, content: "notes\n"}}]}}
  - {name: fan-merged, match: {system_contains: "You are Atomic", last_user_contains: "fan out and merge", tool_result_contains: "Merged branch"}, respond: {text: "Merged it all."}}
  - name: fan-merge
    match: {system_contains: "You are Atomic", last_user_contains: "fan out and merge", has_tool_results: true}
    respond: {tool_calls: [{name: merge_worktree, input: {task_id: general-purpose-2}}]}
  - name: fan
    match: {system_contains: "You are Atomic", last_user_contains: "fan out and merge"}
    respond:
      tool_calls:
        - {name: task, input: {description: "edit in place", prompt: "SUB-EDIT"}}
        - {name: task, input: {description: "edit in a worktree", prompt: "WT-EDIT", isolation: worktree}}
  - {name: remember-fan, match: {system_contains: "You are Atomic", last_user_contains: "what do you remember", any_user_contains: "fan out and merge"}, respond: {text: "I remember the fan-out."}}
  - {name: remember-notes, match: {system_contains: "You are Atomic", last_user_contains: "what do you remember", any_user_contains: "write notes"}, respond: {text: "I remember only the notes."}}
  - {name: recall-fan, match: {system_contains: "You are Atomic", last_user_contains: "recall again", any_user_contains: "fan out and merge"}, respond: {text: "Recalled: the fan-out."}}
  - {name: recall-notes, match: {system_contains: "You are Atomic", last_user_contains: "recall again", any_user_contains: "write notes"}, respond: {text: "Recalled: the notes."}}
  - {name: recall-none, match: {system_contains: "You are Atomic", last_user_contains: "recall again"}, respond: {text: "Recalled: nothing."}}
  - {name: remember-none, match: {system_contains: "You are Atomic", last_user_contains: "what do you remember"}, respond: {text: "I remember nothing at all."}}
`

// inputLine is the input box's first line: the screen's last line that
// starts with the prompt marker (the transcript's prompts are above it).
func inputLine(scr string) string {
	lines := strings.Split(scr, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, "❯") {
			return l
		}
	}
	return ""
}

// openRewind types /rewind until the picker shows want: the lead's turn
// ends a moment after its answer is drawn, and /rewind is refused (as
// for a user) while it runs; on a loaded machine the test typed into that
// moment.
func openRewind(s *screen, want string) {
	const refused = "Cannot rewind while"
	for range 50 {
		before := strings.Count(s.capture(), refused)
		s.typeLine("/rewind")
		scr := s.waitUntil("the rewind picker or its refusal", func(scr string) bool {
			return strings.Contains(scr, want) || strings.Count(scr, refused) > before
		})
		if strings.Contains(scr, want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.waitFor(want) // fails, showing the screen
}

func fileText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return "<none>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The done-criterion: after a fan-out with a worktree merge, the
// rewind restores the code only, the conversation only, then both.
func TestRewindRestoresCodeOnlyConversationOnlyAndBothAfterAFanOutWithAWorktreeMerge(t *testing.T) {
	srv := startServer(t, rewindScenario)
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, work, "init", "-q", "-b", "main")
	testkit.WriteFiles(t, work, map[string]string{"shared.txt": "base\n", "other.txt": "other\n", "README.md": "# demo\n"})
	testkit.Git(t, work, "add", "-A")
	testkit.Git(t, work, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial")
	launch := func(more ...string) *screen {
		return launchIn(t, tmp, []string{"ANTHROPIC_API_KEY=test-key"}, append([]string{"--provider", "anthropic", "--base-url", shellQuote(srv.URL()),
			"--model", "test-model", "--dangerously-skip-permissions"}, more...)...)
	}
	s := launch()
	s.waitFor("Ask anything")
	s.typeLine("write notes")
	s.waitFor("Notes written.")
	s.typeLine("fan out and merge")
	s.waitFor("Merged it all.")
	shared, other, notes := filepath.Join(work, "shared.txt"), filepath.Join(work, "other.txt"), filepath.Join(work, "notes.txt")
	if fileText(t, shared) != "sub\n" || fileText(t, other) != "wt\n" || fileText(t, notes) != "notes\n" {
		t.Fatalf("before rewinding: shared %q other %q notes %q", fileText(t, shared), fileText(t, other), fileText(t, notes))
	}

	// Code only, from Esc twice: the sub-agent's and the merge's changes go.
	s.keys("Escape")
	time.Sleep(200 * time.Millisecond) // two ESC bytes at once read as alt+esc
	s.keys("Escape")
	s.waitFor("fan out and merge · 2 files changed", "write notes · 1 file changed", "bash commands are not tracked")
	s.keys("Enter")
	s.waitFor("Restore code and conversation")
	s.keys("3")
	s.waitFor("Rewound the code (2 files restored, 0 files deleted) to before “fan out and merge”")
	if fileText(t, shared) != "base\n" || fileText(t, other) != "other\n" || fileText(t, notes) != "notes\n" {
		t.Fatalf("after the code-only rewind: shared %q other %q notes %q", fileText(t, shared), fileText(t, other), fileText(t, notes))
	}
	s.typeLine("what do you remember")
	s.waitFor("I remember the fan-out.")

	// Conversation only: the prompt returns to the input, the files stay.
	if err := os.WriteFile(shared, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	openRewind(s, "what do you remember · no file changed")
	s.keys("Down", "Enter")
	s.waitFor("Rewind to before: fan out and merge")
	s.keys("2")
	s.waitFor("Rewound the conversation to before “fan out and merge”")
	s.waitUntil("the prompt back in the input", func(scr string) bool { return inputLine(scr) == "❯ fan out and merge" })
	if fileText(t, shared) != "mine\n" || fileText(t, notes) != "notes\n" {
		t.Fatalf("the conversation-only rewind changed files: shared %q notes %q", fileText(t, shared), fileText(t, notes))
	}
	s.keys("C-u") // clears the input the rewind filled
	s.waitUntil("the input cleared", func(scr string) bool { return inputLine(scr) != "❯ fan out and merge" })
	s.typeLine("what do you remember")
	s.waitFor("I remember only the notes.")

	// Both: the notes file the lead created goes, and so does the prompt.
	openRewind(s, "write notes · 1 file changed")
	s.keys("Down", "Enter")
	s.waitFor("Rewind to before: write notes")
	s.keys("1")
	s.waitFor("Rewound the conversation and the code (0 files restored, 1 file deleted) to before “write notes”")
	if fileText(t, notes) != "<none>" || fileText(t, shared) != "mine\n" {
		t.Fatalf("after rewinding both: notes %q shared %q", fileText(t, notes), fileText(t, shared))
	}
	s.waitUntil("the prompt back in the input", func(scr string) bool { return inputLine(scr) == "❯ write notes" })
	s.keys("C-u")
	s.waitUntil("the input cleared", func(scr string) bool { return inputLine(scr) != "❯ write notes" })
	s.typeLine("what do you remember")
	s.waitFor("I remember nothing at all.")

	// The store kept the rewound conversation: a continued session has
	// neither prompt. Snapshots stay in memory: none carry over.
	s.keys("C-d")
	s.waitUntil("atomic to exit", func(string) bool { return s.exited() })
	s.kill()
	r := launch("--continue")
	r.waitFor("Resumed session")
	r.typeLine("/rewind")
	r.waitFor("No prompts to rewind to yet")
	r.typeLine("recall again")
	r.waitFor("Recalled: nothing.")
}
