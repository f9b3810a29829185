package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFirstRunExplainsSetupAndOffersTheDemo(t *testing.T) {
	f := NewFirstRun("/home/u/.config/atomic/config.json")
	f.Update(sizeMsg(140, 30))
	scr := ansi.Strip(f.Render())
	for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "/home/u/.config/atomic/config.json", "Press Enter to try the built-in demo model"} {
		if !strings.Contains(scr, want) {
			t.Errorf("first-run screen lacks %q:\n%s", want, scr)
		}
	}
	if _, cmd := f.Update(keyMsg("enter")); cmd == nil || !f.ChoseDemo() {
		t.Error("enter did not choose the demo and quit the screen")
	}
	g := NewFirstRun("x")
	if _, cmd := g.Update(keyMsg("q")); cmd == nil || g.ChoseDemo() {
		t.Error("q should quit without the demo")
	}
}
