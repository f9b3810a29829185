package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/checkpoint"
	"github.com/atomic-agent/atomic/internal/runtime"
)

// pressAndRun sends one key and feeds back the rewind outcome its
// command carries.
func pressAndRun(m *Model, k string) {
	_, cmd := m.Update(keyMsg(k))
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			for _, sub := range msg {
				run(sub)
			}
		case rewindDoneMsg:
			m.Update(msg)
		}
	}
	run(cmd)
}

func twoCheckpoints() []checkpoint.Summary {
	return []checkpoint.Summary{
		{Seq: 2, Prompt: "second prompt", Files: []string{"/w/a.go", "/w/b.go"}},
		{Seq: 1, Prompt: "first prompt", Files: []string{"/w/a.go"}},
	}
}

func TestEscTwiceOnAnIdleEmptyInputListsThePromptsNewestFirstWithTheirFileCounts(t *testing.T) {
	m, b, _ := newTestModel(t, 120, 30)
	b.checkpoints = twoCheckpoints()
	press(m, "esc")
	if m.rewind != nil {
		t.Fatal("one Esc opened the rewind picker")
	}
	press(m, "esc")
	f := frame(m)
	second, first := strings.Index(f, "second prompt · 2 files changed"), strings.Index(f, "first prompt · 1 file changed")
	if second < 0 || first < 0 || second > first || !strings.Contains(f, "bash commands are not tracked") {
		t.Fatalf("frame:\n%s\nwant both prompts, newest first, with their files, and the bash caveat", f)
	}
}

func TestEscTwiceWithTextInTheInputDoesNotOpenTheRewindPicker(t *testing.T) {
	m, b, _ := newTestModel(t, 120, 30)
	b.checkpoints = twoCheckpoints()
	typeText(m, "draft")
	press(m, "esc")
	press(m, "esc")
	if m.rewind != nil {
		t.Fatal("Esc twice over a draft opened the rewind picker")
	}
}

func TestRewindConversationOnlyAsksTheRunAndPutsThePromptBackInTheInput(t *testing.T) {
	m, b, _ := newTestModel(t, 120, 30)
	b.checkpoints = twoCheckpoints()
	b.rewound = runtime.Rewound{Prompt: "first prompt"}
	m.command("/rewind")
	press(m, "down")
	press(m, "enter")
	if f := frame(m); !strings.Contains(f, "Restore code and conversation") || !strings.Contains(f, "Rewind to before: first prompt") {
		t.Fatalf("frame:\n%s\nwant the restore choices for the first prompt", f)
	}
	pressAndRun(m, "2")
	if len(b.rewinds) != 1 || b.rewinds[0] != (runtime.RewindRequest{Seq: 1, Conversation: true}) {
		t.Fatalf("rewinds asked %+v, want the conversation of checkpoint 1", b.rewinds)
	}
	if got := m.in.value(); got != "first prompt" {
		t.Fatalf("input = %q, want the rewound prompt back", got)
	}
	if f := frame(m); !strings.Contains(f, "Rewound the conversation to before “first prompt”") {
		t.Fatalf("frame:\n%s\nwant the rewind noted", f)
	}
}

func TestRewindCodeSaysWhatWasRestoredAndDeleted(t *testing.T) {
	m, b, _ := newTestModel(t, 120, 30)
	b.checkpoints = twoCheckpoints()
	b.rewound = runtime.Rewound{Prompt: "second prompt", Code: checkpoint.Restored{Written: []string{"/w/a.go"}, Deleted: []string{"/w/b.go"}}}
	m.command("/rewind")
	press(m, "enter")
	press(m, "down")
	press(m, "down")
	pressAndRun(m, "enter")
	if len(b.rewinds) != 1 || b.rewinds[0] != (runtime.RewindRequest{Seq: 2, Code: true}) {
		t.Fatalf("rewinds asked %+v, want the code of checkpoint 2", b.rewinds)
	}
	if f := frame(m); !strings.Contains(f, "Rewound the code (1 file restored, 1 file deleted) to before “second prompt”") || m.in.value() != "" {
		t.Fatalf("frame:\n%s\ninput %q; want the code rewind noted and the input left empty", f, m.in.value())
	}
}

func TestRewindIsRefusedWhileTheLeadWorksAndCancelAsksNothing(t *testing.T) {
	m, b, _ := newTestModel(t, 120, 30)
	b.checkpoints = twoCheckpoints()
	m.busy = true
	m.command("/rewind")
	if m.rewind != nil || !strings.Contains(frame(m), "Cannot rewind while agents or shells run") {
		t.Fatalf("frame:\n%s\nwant the refusal", frame(m))
	}
	m.busy = false
	m.command("/rewind")
	press(m, "enter")
	pressAndRun(m, "4")
	if len(b.rewinds) != 0 || m.rewind != nil {
		t.Fatalf("Cancel asked %+v; picker open %v", b.rewinds, m.rewind != nil)
	}
}

func TestTwoEscsMoreThanTwoSecondsApartDoNotOpenTheRewindPicker(t *testing.T) {
	m, b, c := newTestModel(t, 120, 30)
	b.checkpoints = twoCheckpoints()
	press(m, "esc")
	c.Set(at(2.5))
	press(m, "esc")
	if m.rewind != nil {
		t.Fatal("Escs 2.5 s apart opened the rewind picker")
	}
	press(m, "esc")
	if m.rewind == nil {
		t.Fatal("a third Esc right after the second did not open it")
	}
}

func TestTwoEscsReadAtOnceAsAltEscOpenTheRewindPicker(t *testing.T) {
	m, b, _ := newTestModel(t, 120, 30)
	b.checkpoints = twoCheckpoints()
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape, Mod: tea.ModAlt})
	if m.rewind == nil {
		t.Fatal("alt+esc on an idle, empty input did not open the rewind picker")
	}
}

func TestALongListOfPromptsScrollsWithTheSelection(t *testing.T) {
	m, b, _ := newTestModel(t, 120, 20)
	for i := 30; i >= 1; i-- {
		b.checkpoints = append(b.checkpoints, checkpoint.Summary{Seq: i, Prompt: fmt.Sprintf("prompt number %d", i)})
	}
	m.command("/rewind")
	if f := frame(m); !strings.Contains(f, "prompt number 30 ·") || strings.Contains(f, "prompt number 1 ·") {
		t.Fatalf("frame:\n%s\nwant the newest prompts shown first, the oldest off screen", f)
	}
	for range 29 {
		press(m, "down")
	}
	if f := frame(m); !strings.Contains(f, "prompt number 1 ·") || strings.Contains(f, "prompt number 30 ·") {
		t.Fatalf("frame:\n%s\nwant the list scrolled down to the oldest prompt", f)
	}
}
