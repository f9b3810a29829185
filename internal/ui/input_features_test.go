package ui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// pressCode presses a key with no text (tab, shift+tab, backspace).
func pressCode(m *Model, code rune, mod tea.KeyMod) { m.Update(tea.KeyPressMsg{Code: code, Mod: mod}) }

// askAndRun sends text with enter and runs what it left for later, as the
// program would.
func askAndRun(m *Model, text string) {
	m.in.ta.SetValue(text)
	m.key(tea.KeyPressMsg{Code: tea.KeyEnter})
	runPending(m)
}

// runPending runs what the model left for later and feeds its message back.
func runPending(m *Model) {
	if later := m.later; later != nil {
		m.later = nil
		m.Update(later())
	}
}

// workspaceModel is a test model on a real workspace: @ files listed and
// read by the tools, ! commands run by the bash tool.
func workspaceModel(t *testing.T, files map[string]string) (*Model, *fakeBackend, string) {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := tools.Workspace{Root: root}
	m, b, _ := newTestModel(t, 80, 16)
	m.cfg.Workspace = root
	m.cfg.Files = func(ctx context.Context, limit int) ([]string, error) { return tools.ListFiles(ctx, ws, limit) }
	run := func(ctx context.Context, t tools.Tool, in map[string]string) (string, error) {
		raw, _ := json.Marshal(in)
		res := tools.Execute(ctx, t, tools.Call{ID: "u", Input: raw})
		return res.Content, nil
	}
	m.cfg.Attach = func(ctx context.Context, p string) (string, error) {
		return run(ctx, tools.NewRead(ws), map[string]string{"file_path": p})
	}
	m.cfg.Shell = func(ctx context.Context, c string) (string, error) {
		return run(ctx, tools.NewBash(ws), map[string]string{"command": c})
	}
	return m, b, root
}

func TestSlashMenuShowsMatchingCommandsAndTabCompletesThePick(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 14)
	typeText(m, "/m")
	golden(t, "menu_slash", frame(m))
	press(m, "down")
	pressCode(m, tea.KeyTab, 0)
	if got := m.in.value(); got != "/memory " {
		t.Errorf("after down and tab the input is %q, want %q", got, "/memory ")
	}
	if m.menu.open() {
		t.Error("the menu stays open after a command was completed")
	}
}

func TestSlashMenuCompletesArgumentsAndEnterRunsThePickedCommand(t *testing.T) {
	m, b, _ := newTestModel(t, 80, 14)
	typeText(m, "/tasks c")
	if len(m.menu.items) != 1 || m.menu.items[0].insert != "cancel" {
		t.Fatalf("menu for %q: %+v", "/tasks c", m.menu.items)
	}
	pressCode(m, tea.KeyTab, 0)
	if got := m.in.value(); got != "/tasks cancel " {
		t.Errorf("input %q", got)
	}
	m.in.reset()
	typeText(m, "/mod")
	press(m, "enter") // runs /model, the only match
	if !strings.Contains(frame(m), "Model: test-model") || len(b.submitted) != 0 {
		t.Errorf("enter on the menu did not run /model:\n%s", frame(m))
	}
	typeText(m, "/m")
	press(m, "esc")
	if m.menu.open() || len(b.interrupts) != 0 {
		t.Error("esc did not just close the menu")
	}
}

func TestAtMentionCompletesWorkspaceFilesFuzzilySkippingGitignored(t *testing.T) {
	m, _, _ := workspaceModel(t, map[string]string{
		".gitignore":             "dist/\n",
		"internal/auth/login.go": "package auth",
		"internal/auth/token.go": "package auth",
		"cmd/login/main.go":      "package main",
		"dist/login.bundle.js":   "x",
		"docs/LOGIN.md":          "# Login",
	})
	typeText(m, "explain @login")
	golden(t, "menu_mention", frame(m))
	for _, it := range m.menu.items {
		if strings.Contains(it.insert, "dist/") {
			t.Errorf("a gitignored file is offered: %s", it.insert)
		}
	}
	press(m, "enter") // picks the file; does not send
	if got := m.in.value(); got != "explain @docs/LOGIN.md " {
		t.Errorf("input %q", got)
	}
	typeText(m, "@iatok")
	if len(m.menu.items) == 0 || m.menu.items[0].insert != "@internal/auth/token.go" {
		t.Errorf("fuzzy @iatok: %+v", m.menu.items)
	}
}

func TestAtMentionAttachesTheFileAndRefusesOneOutsideTheWorkspace(t *testing.T) {
	m, b, root := workspaceModel(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	outside := filepath.Join(filepath.Dir(root), "secret.txt")
	if err := os.WriteFile(outside, []byte("hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(outside) })
	askAndRun(m, "what does @main.go do? cc @alice and @../secret.txt")
	if len(b.submitted) != 1 {
		t.Fatalf("submitted %d prompts", len(b.submitted))
	}
	p := b.submitted[0]
	if !strings.Contains(p, `<attached-file path="main.go">`) || !strings.Contains(p, "func main() {}") {
		t.Errorf("main.go is not attached:\n%s", p)
	}
	if strings.Contains(p, "hunter2") || strings.Contains(p, "alice\">") {
		t.Errorf("attached what it must not:\n%s", p)
	}
	if !strings.Contains(frame(m), "@../secret.txt is outside the workspace: not attached") {
		t.Errorf("the refusal is not said:\n%s", frame(m))
	}
}

func TestBangRunsTheShellCommandAndGivesItsOutputWithTheNextPrompt(t *testing.T) {
	m, b, _ := workspaceModel(t, map[string]string{"a.txt": "alpha\n"})
	askAndRun(m, "!cat a.txt")
	if len(b.submitted) != 0 {
		t.Fatalf("! sent a prompt: %v", b.submitted)
	}
	if f := frame(m); !strings.Contains(f, "! cat a.txt") || !strings.Contains(f, "alpha") {
		t.Errorf("the command and its output are not shown:\n%s", f)
	}
	userAsk(m, "summarise that")
	want := "<bash-input>cat a.txt</bash-input>\n<bash-stdout>alpha</bash-stdout>\n\nsummarise that"
	if len(b.submitted) != 1 || b.submitted[0] != want {
		t.Errorf("prompt = %q, want %q", b.submitted, want)
	}
}

func TestHashAddsTheLineToTheProjectMemoryFile(t *testing.T) {
	m, b, root := workspaceModel(t, nil)
	userAsk(m, "# always run go vet")
	data, err := os.ReadFile(filepath.Join(root, "AGENTS.md"))
	if err != nil || string(data) != "- always run go vet\n" {
		t.Fatalf("AGENTS.md = %q, %v", data, err)
	}
	if !strings.Contains(frame(m), "Added to AGENTS.md") || len(b.submitted) != 0 {
		t.Errorf("frame:\n%s", frame(m))
	}
}

func TestShiftTabCyclesThePermissionModeShownInTheStatusLine(t *testing.T) {
	g, err := permission.NewGate(permission.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, _ := newTestModel(t, 90, 8)
	m.cfg.Modes = g
	var seen []permission.Mode
	for range 3 {
		pressCode(m, tea.KeyTab, tea.ModShift)
		seen = append(seen, g.Mode())
		if g.Mode() == permission.AcceptEdits {
			golden(t, "mode_accept_edits", frame(m))
		}
	}
	want := []permission.Mode{permission.AcceptEdits, permission.Plan, permission.Default}
	if strings.Join(modeNames(seen), ",") != strings.Join(modeNames(want), ",") {
		t.Errorf("modes %v, want %v", seen, want)
	}
	if strings.Contains(frame(m), "mode on") {
		t.Error("default mode is still shown")
	}
}

func modeNames(ms []permission.Mode) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return out
}

func TestCtrlRSearchesThisSessionsAndTheFoldersEarlierPrompts(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 10)
	m.cfg.History = []string{"fix the flaky login test", "add a README"}
	userAsk(m, "run the login benchmarks")
	press(m, "ctrl+r")
	typeText(m, "login")
	golden(t, "history_search", frame(m))
	press(m, "ctrl+r") // older match: the stored prompt
	press(m, "enter")
	if got := m.in.value(); got != "fix the flaky login test" {
		t.Errorf("input %q", got)
	}
	m.in.reset()
	typeText(m, "draft")
	press(m, "ctrl+r")
	typeText(m, "zzz")
	if !strings.Contains(frame(m), "failing reverse-i-search") {
		t.Errorf("no failing search shown:\n%s", frame(m))
	}
	press(m, "esc")
	if got := m.in.value(); got != "draft" {
		t.Errorf("esc left %q, want the draft back", got)
	}
}
