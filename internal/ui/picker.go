package ui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// PickerSession is one saved session the resume picker lists.
type PickerSession struct {
	ID, Title, Status string
	Started           time.Time
	Agents            int
}

// Picker is the screen of atomic --resume without an id: the recent
// sessions, newest first, to pick one to continue.
type Picker struct {
	sessions []PickerSession
	now      time.Time
	sel      int
	width    int
	height   int
	chosen   string
	theme    Theme
}

// NewPicker lists sessions as of now.
func NewPicker(sessions []PickerSession, now time.Time) *Picker {
	return &Picker{sessions: sessions, now: now, width: 80, height: 24, theme: DefaultTheme()}
}

// Init implements tea.Model.
func (p *Picker) Init() tea.Cmd { return nil }

// Update implements tea.Model: up and down move, enter picks, esc, q and
// ctrl+c leave without a pick.
func (p *Picker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.width, p.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		switch msg.String() {
		case "up", "k":
			p.sel = max(0, p.sel-1)
		case "down", "j":
			p.sel = min(len(p.sessions)-1, p.sel+1)
		case "enter":
			if len(p.sessions) > 0 {
				p.chosen = p.sessions[p.sel].ID
			}
			return p, tea.Quit
		case "esc", "q", "ctrl+c", "ctrl+d":
			return p, tea.Quit
		}
	}
	return p, nil
}

// Chosen is the id picked ("" when the user left without one).
func (p *Picker) Chosen() string { return p.chosen }

// View implements tea.Model.
func (p *Picker) View() tea.View {
	v := tea.NewView(p.Render())
	v.AltScreen = true
	return v
}

// Render is the screen's text: one row per session (title, age, agents,
// status), the selected one marked, scrolled to keep it in view.
func (p *Picker) Render() string {
	th := p.theme
	lines := []string{th.accent().Bold(true).Render("Resume a session") +
		th.muted().Render("  ↑/↓ to choose · Enter to resume · Esc to quit"), ""}
	if len(p.sessions) == 0 {
		lines = append(lines, "No saved sessions in this directory.")
	}
	rows := max(1, p.height-len(lines))
	first := max(0, p.sel-rows+1)
	for i := first; i < len(p.sessions) && i < first+rows; i++ {
		s := p.sessions[i]
		title := s.Title
		if title == "" {
			title = "(no prompt)"
		}
		agents := fmt.Sprintf("%d agents", s.Agents)
		if s.Agents == 1 {
			agents = "1 agent"
		}
		meta := fmt.Sprintf(" · %s ago · %s · %s", age(p.now.Sub(s.Started)), agents, s.Status)
		row := "  " + title + th.muted().Render(meta)
		if i == p.sel {
			row = th.accent().Render("› "+title) + th.muted().Render(meta)
		}
		lines = append(lines, fit(row, p.width))
	}
	return strings.Join(lines, "\n")
}

// RunPicker shows the picker on in/out and returns the id picked, "" when
// the user left without one.
func RunPicker(ctx context.Context, in io.Reader, out io.Writer, sessions []PickerSession) (string, error) {
	p := NewPicker(sessions, time.Now())
	prog := tea.NewProgram(p, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	if _, err := prog.Run(); err != nil {
		return "", fmt.Errorf("session picker: %w", err)
	}
	return p.Chosen(), nil
}

// age is how long ago, in its largest unit: 45s, 12m, 3h, 2d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	}
}
