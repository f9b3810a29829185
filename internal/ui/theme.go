// Package ui is Atomic's terminal chat UI (SPEC §4): a Bubble Tea program
// whose transcript holds the conversation, compact tool calls and the live
// agents trees, fed only by the event bus (through the lifecycle reducer for
// sub-agent status), with one approval queue for every agent.
package ui

import (
	"image/color"

	"charm.land/lipgloss/v2"

	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// Theme holds the colours the UI draws with. Tests compare styles against
// it, so every status colour is named here and nowhere else.
type Theme struct {
	Accent  color.Color // active headers, the prompt marker
	Muted   color.Color // pending, running and background dots; secondary text
	Success color.Color // completed
	Warning color.Color // interrupted
	Danger  color.Color // error
	Text    color.Color
}

// DefaultTheme is the palette used by the program.
func DefaultTheme() Theme {
	return Theme{
		Accent:  lipgloss.Color("#D97757"),
		Muted:   lipgloss.Color("#8A8A8A"),
		Success: lipgloss.Color("#4EBA65"),
		Warning: lipgloss.Color("#E5C07B"),
		Danger:  lipgloss.Color("#E06C75"),
		Text:    lipgloss.Color("#E4E4E4"),
	}
}

// StatusColor is the dot colour of an agent in status st: green, yellow and
// red for the terminal statuses, muted grey for every active one, so a dot
// never looks finished while the work runs.
func (t Theme) StatusColor(st lifecycle.Status) color.Color {
	switch st {
	case lifecycle.Completed:
		return t.Success
	case lifecycle.Interrupted:
		return t.Warning
	case lifecycle.Error:
		return t.Danger
	default:
		return t.Muted
	}
}

// StatusStyle is the style of an agent's status dot.
func (t Theme) StatusStyle(st lifecycle.Status) lipgloss.Style {
	return lipgloss.NewStyle().Foreground(t.StatusColor(st))
}

func (t Theme) muted() lipgloss.Style  { return lipgloss.NewStyle().Foreground(t.Muted) }
func (t Theme) accent() lipgloss.Style { return lipgloss.NewStyle().Foreground(t.Accent) }
func (t Theme) bold() lipgloss.Style   { return lipgloss.NewStyle().Bold(true) }
func (t Theme) danger() lipgloss.Style { return lipgloss.NewStyle().Foreground(t.Danger) }
func (t Theme) fg(c color.Color) lipgloss.Style {
	return lipgloss.NewStyle().Foreground(c)
}
