package ui

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/commands"
	"github.com/atomic-agent/atomic/internal/memory"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// newProjectModel is a test model over a project folder holding files,
// with its memory and custom commands loaded as the CLI loads them.
func newProjectModel(t *testing.T, files map[string]string) (*Model, *fakeBackend, string) {
	t.Helper()
	root := t.TempDir()
	testkit.WriteFiles(t, root, files)
	cmds, problems := commands.Load(commands.Dirs(root, "", ""), FixedCommands())
	if len(problems) != 0 {
		t.Fatalf("command problems: %v", problems)
	}
	b := &fakeBackend{}
	c := &clock{now: t0}
	m := New(Config{Backend: b, Now: c.Now, Memory: memory.Load(memory.Places{Dir: root}), Commands: cmds})
	m.Update(tea.WindowSizeMsg{Width: 400, Height: 30})
	return m, b, root
}

func TestMemoryListsTheLoadedFilesAndWarnings(t *testing.T) {
	m, _, root := newProjectModel(t, map[string]string{"AGENTS.md": "Use tabs.\n@docs/style.md\n@gone.md", "docs/style.md": "Short names."})
	userAsk(m, "/memory")
	f := frame(m)
	for _, want := range []string{
		filepath.Join(root, "AGENTS.md") + " · 33 B · 3 lines · project instructions",
		filepath.Join(root, "docs/style.md") + " · 12 B · 1 line · imported by " + filepath.Join(root, "AGENTS.md") + ":2",
		filepath.Join(root, "AGENTS.md") + ":3: import @" + filepath.Join(root, "gone.md") + ": no such file",
	} {
		if !strings.Contains(f, want) {
			t.Errorf("/memory lacks %q:\n%s", want, f)
		}
	}
}

func TestHelpListsCustomCommandsWithHintAndDescription(t *testing.T) {
	m, _, _ := newProjectModel(t, map[string]string{
		".atomic/commands/fix.md":     "---\ndescription: Fix an issue\nargument-hint: [issue]\n---\nFix $ARGUMENTS",
		".claude/commands/fe/comp.md": "# Make a component\nNamed $1.",
	})
	userAsk(m, "/help")
	f := frame(m)
	for _, want := range []string{"/memory", "Custom commands:", "/fe:comp            Make a component (project)", "/fix [issue]        Fix an issue (project)"} {
		if !strings.Contains(f, want) {
			t.Errorf("/help lacks %q:\n%s", want, f)
		}
	}
}

func TestCustomCommandSendsItsExpansionAndShowsWhatWasTyped(t *testing.T) {
	m, b, _ := newProjectModel(t, map[string]string{".claude/commands/fix.md": "---\ndescription: Fix an issue\n---\nFix issue $1 and add a test ($ARGUMENTS)."})
	userAsk(m, "/fix 42 fast")
	if len(b.submitted) != 1 || b.submitted[0] != "Fix issue 42 and add a test (42 fast)." {
		t.Fatalf("submitted %q, want the expanded prompt", b.submitted)
	}
	f := frame(m)
	if !strings.Contains(f, "/fix 42 fast") || strings.Contains(f, "Fix issue 42") {
		t.Errorf("transcript should show what was typed, not the expansion:\n%s", f)
	}
	userAsk(m, "/nosuch thing")
	if len(b.submitted) != 1 || !strings.Contains(frame(m), "Unknown command /nosuch") {
		t.Errorf("an unknown command was sent (%q) or not reported:\n%s", b.submitted, frame(m))
	}
}

// awaitMsg runs cmd's commands (each on its own goroutine: a tick sleeps)
// and returns the first message of type T.
func awaitMsg[T tea.Msg](t *testing.T, cmd tea.Cmd) T {
	t.Helper()
	found := make(chan T, 1)
	var run func(c tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				go run(c)
			}
		case T:
			select {
			case found <- msg:
			default:
			}
		}
	}
	go run(cmd)
	select {
	case msg := <-found:
		return msg
	case <-time.After(5 * time.Second):
		t.Fatal("no such message from the update's commands")
	}
	var zero T
	return zero
}

func TestACustomCommandThatRunsCommandsSendsItsPromptOnceTheyRanOrSaysWhyNot(t *testing.T) {
	m, b, _ := newProjectModel(t, map[string]string{
		".claude/commands/st.md": "---\nallowed-tools: Bash(git status:*)\n---\nStatus: !`git status`",
		".claude/commands/no.md": "Push: !`git push`",
	})
	var rendered []string
	m.cfg.RenderCommand = func(_ context.Context, c commands.Command, args string) (string, error) {
		rendered = append(rendered, c.Name)
		if c.Name == "no" {
			return "", errors.New("/no: !`git push`: permission denied")
		}
		return "Status: clean", nil
	}
	m.in.ta.SetValue("/st")
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if len(b.submitted) != 0 {
		t.Fatalf("submitted %q before the commands ran", b.submitted)
	}
	m.Update(awaitMsg[commandReadyMsg](t, cmd))
	if len(b.submitted) != 1 || b.submitted[0] != "Status: clean" || !strings.Contains(frame(m), "/st") {
		t.Fatalf("submitted %q, want the rendered prompt, the transcript showing /st:\n%s", b.submitted, frame(m))
	}
	m.in.ta.SetValue("/no")
	_, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	m.Update(awaitMsg[commandReadyMsg](t, cmd))
	if len(b.submitted) != 1 || !strings.Contains(frame(m), "/no: !`git push`: permission denied") {
		t.Fatalf("submitted %q; the denial should be shown and nothing sent:\n%s", b.submitted, frame(m))
	}
	if strings.Join(rendered, ",") != "st,no" {
		t.Errorf("rendered %q", rendered)
	}
}
