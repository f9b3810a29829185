package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func pickerSessions() []PickerSession {
	return []PickerSession{
		{ID: "s3", Title: "fix the flaky test", Status: "interrupted", Started: at(-90), Agents: 1},
		{ID: "s2", Title: "explore the project", Status: "completed", Started: at(-3 * 3600), Agents: 3},
		{ID: "s1", Title: "", Status: "error", Started: at(-3 * 86400), Agents: 0},
	}
}

func TestPickerListsTitleAgeAgentsAndStatusNewestFirst(t *testing.T) {
	p := NewPicker(pickerSessions(), at(0))
	p.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
	got := ansi.Strip(p.Render())
	want := []string{
		"› fix the flaky test · 1m ago · 1 agent · interrupted",
		"  explore the project · 3h ago · 3 agents · completed",
		"  (no prompt) · 3d ago · 0 agents · error",
	}
	if !strings.Contains(got, strings.Join(want, "\n")) {
		t.Fatalf("picker:\n%s\nwant rows:\n%s", got, strings.Join(want, "\n"))
	}
}

func TestPickerEnterPicksTheSelectedSessionAndEscPicksNone(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{[]string{"enter"}, "s3"},
		{[]string{"down", "enter"}, "s2"},
		{[]string{"down", "down", "down", "enter"}, "s1"},
		{[]string{"down", "up", "up", "enter"}, "s3"},
		{[]string{"down", "esc"}, ""},
	} {
		p := NewPicker(pickerSessions(), at(0))
		var cmd tea.Cmd
		for _, k := range tc.keys {
			_, cmd = p.Update(keyMsg(k))
		}
		if p.Chosen() != tc.want || cmd == nil {
			t.Errorf("%v: chose %q (quit %v); want %q and the picker closed", tc.keys, p.Chosen(), cmd != nil, tc.want)
		}
	}
}

func TestAgeIsShownInItsLargestUnit(t *testing.T) {
	for d, want := range map[time.Duration]string{-time.Second: "0s", 45 * time.Second: "45s", 12 * time.Minute: "12m", 5 * time.Hour: "5h", 50 * time.Hour: "2d"} {
		if got := age(d); got != want {
			t.Errorf("age(%s) = %q; want %q", d, got, want)
		}
	}
}
