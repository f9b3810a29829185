package ui

import (
	"context"
	"fmt"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// FirstRun is the screen shown when no model provider is configured: it
// says how to set one up and offers the built-in demo model.
type FirstRun struct {
	// ConfigPath is where the config file would be read from.
	ConfigPath string
	width      int
	choice     bool
	done       bool
	theme      Theme
}

// NewFirstRun returns the first-run screen.
func NewFirstRun(configPath string) *FirstRun {
	return &FirstRun{ConfigPath: configPath, width: 80, theme: DefaultTheme()}
}

// Init implements tea.Model.
func (f *FirstRun) Init() tea.Cmd { return nil }

// Update implements tea.Model: enter or d starts the demo model; q, esc,
// ctrl+c or ctrl+d quit.
func (f *FirstRun) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		f.width = msg.Width
	case tea.KeyPressMsg:
		switch msg.String() {
		case "enter", "d", "space":
			f.choice, f.done = true, true
			return f, tea.Quit
		case "q", "esc", "ctrl+c", "ctrl+d":
			f.done = true
			return f, tea.Quit
		}
	}
	return f, nil
}

// ChoseDemo reports whether the user asked for the demo model.
func (f *FirstRun) ChoseDemo() bool { return f.choice }

// View implements tea.Model.
func (f *FirstRun) View() tea.View {
	v := tea.NewView(f.Render())
	v.AltScreen = true
	return v
}

// Render is the screen's text.
func (f *FirstRun) Render() string {
	th := f.theme
	var b strings.Builder
	b.WriteString(th.accent().Bold(true).Render("Welcome to Atomic") + "\n\n")
	b.WriteString("No model provider is configured yet. To use a real model, either:\n\n")
	b.WriteString("  • set an API key in the environment and start atomic again:\n")
	b.WriteString("      export ANTHROPIC_API_KEY=sk-ant-…     (Anthropic; ANTHROPIC_BASE_URL for a proxy)\n")
	b.WriteString("      export OPENAI_API_KEY=sk-…            (OpenAI; OPENAI_BASE_URL for Ollama, vLLM, LM Studio, OpenRouter)\n\n")
	fmt.Fprintf(&b, "  • or write the config file %s:\n", th.bold().Render(f.ConfigPath))
	b.WriteString(`      {"provider": "anthropic", "api_key": "sk-ant-…", "model": "claude-sonnet-4-5"}` + "\n\n")
	b.WriteString("  • or pass flags: atomic --provider openai --base-url http://localhost:11434/v1 --model llama3\n\n")
	b.WriteString(th.accent().Render("Press Enter to try the built-in demo model now") +
		th.muted().Render(" (canned decisions, real tool calls: it explores this folder with parallel agents)") + "\n")
	b.WriteString(th.muted().Render("Press q or Esc to quit."))
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = fit(l, f.width)
	}
	return strings.Join(lines, "\n")
}

// RunFirstRun shows the first-run screen on in/out and reports whether the
// user chose the demo model.
func RunFirstRun(ctx context.Context, in io.Reader, out io.Writer, configPath string) (bool, error) {
	f := NewFirstRun(configPath)
	p := tea.NewProgram(f, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	if _, err := p.Run(); err != nil {
		return false, fmt.Errorf("first-run screen: %w", err)
	}
	return f.ChoseDemo(), nil
}
