package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/bus"
)

func (b *fakeBackend) ProviderName() string {
	if b.provider == "" {
		return "anthropic"
	}
	return b.provider
}

func (b *fakeBackend) ListModels(ctx context.Context) ([]string, error) {
	return b.models, b.listErr
}

func (b *fakeBackend) Reducer() *bus.Bus { return b.bus }

// runLater runs the command a slash command left and gives its message
// back to the model, as Bubble Tea would.
func runLater(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		t.Fatal("the command left nothing to run")
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			if c != nil {
				m.Update(c())
			}
		}
		return
	}
	m.Update(msg)
}

// ask types text and returns the command Update gave back.
func ask(m *Model, text string) tea.Cmd {
	m.in.ta.SetValue(text)
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	return cmd
}

func TestModelSwitchesToAModelTheProviderLists(t *testing.T) {
	m, b, _ := newTestModel(t, 100, 20)
	b.models = []string{"claude-sonnet-4-5", "claude-opus-4-1"}
	runLater(t, m, ask(m, "/model claude-opus-4-1"))
	if len(b.switched) != 1 || b.switched[0] != "claude-opus-4-1" {
		t.Fatalf("switched %q", b.switched)
	}
	if f := frame(m); !strings.Contains(f, "Switched to model claude-opus-4-1\n") {
		t.Errorf("the switch is not said plainly:\n%s", f)
	}
}

func TestModelRefusesANameTheProviderDoesNotListNamingCloseMatches(t *testing.T) {
	m, b, _ := newTestModel(t, 120, 20)
	b.models = []string{"claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5", "gpt-4o"}
	runLater(t, m, ask(m, "/model claude-sonet-4-5"))
	if len(b.switched) != 0 {
		t.Fatalf("switched to an unknown model: %q", b.switched)
	}
	f := frame(m)
	if !strings.Contains(f, `No model "claude-sonet-4-5" at this provider; kept test-model. Close matches: claude-sonnet-4-5`) || strings.Contains(f, "gpt-4o") {
		t.Errorf("the refusal does not name the close match (and only close ones):\n%s", f)
	}
}

func TestModelSwitchesUncheckedWhenTheProviderCannotList(t *testing.T) {
	m, b, _ := newTestModel(t, 120, 20)
	b.listErr = errors.New("anthropic: listing models: 404 Not Found")
	runLater(t, m, ask(m, "/model my-finetune"))
	if len(b.switched) != 1 {
		t.Fatalf("switched %q", b.switched)
	}
	if f := frame(m); !strings.Contains(f, "Switched to model my-finetune (unchecked: anthropic: listing models: 404 Not Found)") {
		t.Errorf("an unchecked switch is not said:\n%s", f)
	}
	b.listErr = context.DeadlineExceeded
	runLater(t, m, ask(m, "/model slow-one"))
	if f := frame(m); !strings.Contains(f, "(unchecked: the provider did not list its models within 3s)") {
		t.Errorf("a timed-out list is not said:\n%s", f)
	}
}

func TestModelUnderTheDemoSaysTheDemoIgnoresIt(t *testing.T) {
	m, b, _ := newTestModel(t, 120, 20)
	b.provider = "demo"
	ask(m, "/model claude-opus-4-1")
	if len(b.switched) != 1 {
		t.Fatalf("switched %q", b.switched)
	}
	if f := frame(m); !strings.Contains(f, "Switched to model claude-opus-4-1 (the demo ignores it: its answers are canned whatever the model)") {
		t.Errorf("the demo's switch does not say it is ignored:\n%s", f)
	}
}

func TestCloseMatchesPreferNamesThatContainTheTypedOne(t *testing.T) {
	got := closeMatches("opus", []string{"claude-opus-4-1", "claude-sonnet-4-5", "opus-mini", "gpt-4o"}, 3)
	if strings.Join(got, ",") != "claude-opus-4-1,opus-mini" {
		t.Errorf("closeMatches = %q", got)
	}
}
