package ui

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

func TestStreamedTextIsRenderedAsMarkdownAndReplacedByTheCompleteText(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 20)
	feedEvents(m,
		ev(event.MessageDelta, at(0), event.LeadID, "", event.MessageDeltaData{Text: "# Plan\n\n- first "}),
		ev(event.MessageDelta, at(0), event.LeadID, "", event.MessageDeltaData{Text: "item\n- `code`"}),
	)
	f := frame(m)
	if !strings.Contains(f, "Plan") || strings.Contains(f, "# Plan") || !strings.Contains(f, "• first item") {
		t.Errorf("streaming text not rendered as Markdown:\n%s", f)
	}
	feedEvents(m, ev(event.MessageComplete, at(1), event.LeadID, "", event.MessageCompleteData{Text: "Final **answer**."}))
	f = frame(m)
	if !strings.Contains(f, "Final answer.") || strings.Contains(f, "first item") {
		t.Errorf("complete text does not replace the stream:\n%s", f)
	}
}

func TestDiscardedStreamIsDropped(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 20)
	feedEvents(m,
		ev(event.MessageDelta, at(0), event.LeadID, "", event.MessageDeltaData{Text: "garbled half"}),
		ev(event.MessageDelta, at(1), event.LeadID, "", event.MessageDeltaData{Discard: true}),
		ev(event.MessageDelta, at(1), event.LeadID, "", event.MessageDeltaData{Text: "retried text"}),
	)
	f := frame(m)
	if strings.Contains(f, "garbled") || !strings.Contains(f, "retried text") {
		t.Errorf("frame:\n%s", f)
	}
}

func TestSubagentTextStaysOutOfTheChat(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 20)
	feedEvents(m,
		ev(event.MessageDelta, at(0), "explore-1", "", event.MessageDeltaData{Text: "sub-agent musings"}),
		ev(event.ToolStart, at(0), "explore-1", "x1", event.ToolStartData{Name: "grep", Input: []byte(`{"pattern":"x"}`)}),
	)
	if f := frame(m); strings.Contains(f, "musings") || strings.Contains(f, "grep") {
		t.Errorf("a sub-agent's text or tools leaked into the chat:\n%s", f)
	}
}

func TestTaskCallsOfOneMessageShareATreeAndANewMessageStartsAnother(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 40)
	feedEvents(m,
		leadText(at(0), "Round one."),
		taskStart(at(0), "c1", "explore", "A", ""),
		taskStart(at(0), "c2", "explore", "B", ""),
		taskReturn(at(2), "c1", "a", true),
		taskReturn(at(3), "c2", "b", true),
		leadText(at(4), "Round two."),
		taskStart(at(4), "c3", "explore", "C", ""),
	)
	if len(m.trees) != 2 || m.trees[0].recs.Len() != 2 || m.trees[1].recs.Len() != 1 {
		t.Fatalf("trees: %d", len(m.trees))
	}
	f := frame(m)
	one, tree1, two, tree2 := strings.Index(f, "Round one."), strings.Index(f, "2 Explore agents finished"),
		strings.Index(f, "Round two."), strings.Index(f, "Running 1 Explore agent…")
	if !(one < tree1 && tree1 < two && two < tree2) {
		t.Errorf("trees are not where their task calls were made:\n%s", f)
	}
}

func TestToolCallsShowTheirSubjectAndResult(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 30)
	feedEvents(m,
		ev(event.ToolStart, at(0), event.LeadID, "t1", event.ToolStartData{Name: "bash", Input: []byte(`{"command":"go test ./..."}`)}),
	)
	if f := frame(m); !strings.Contains(f, "● bash go test ./...") || !strings.Contains(f, "╰ Running…") {
		t.Errorf("running tool:\n%s", f)
	}
	feedEvents(m,
		ev(event.ToolComplete, at(1), event.LeadID, "t1", event.ToolCompleteData{Name: "bash", Error: "exit status 1\nFAIL x"}),
	)
	if f := frame(m); !strings.Contains(f, "╰ exit status 1 (+1 lines") {
		t.Errorf("failed tool:\n%s", f)
	}
}

func TestScrollingShowsOlderLinesAndStopsAtTheTop(t *testing.T) {
	m, _, _ := newTestModel(t, 60, 12)
	m.cfg.AltScreen = true // inline, the terminal scrolls its own history
	for i := range 30 {
		m.note(noteInfo, "line "+string(rune('A'+i%26))+string(rune('a'+i/26)))
	}
	if strings.Contains(frame(m), "line Aa") {
		t.Fatal("oldest line visible without scrolling")
	}
	for range 20 {
		press(m, "pgup")
	}
	if !strings.Contains(frame(m), "line Aa") {
		t.Errorf("pgup did not reach the top:\n%s", frame(m))
	}
	userAsk(m, "new prompt")
	if !strings.Contains(frame(m), "new prompt") {
		t.Error("sending a prompt does not scroll back to the bottom")
	}
}

func TestStreamingSplitsBlocksOnlyOutsideCodeFences(t *testing.T) {
	e := &assistantEntry{streaming: true}
	e.append("Intro paragraph.\n\n```go\nfunc A() {}\n\nfunc B() {}\n```\n\nAfter")
	e.settle()
	if len(e.blocks) != 2 {
		t.Fatalf("blocks = %d, want 2 (the intro and the whole fence)", len(e.blocks))
	}
	if !strings.Contains(e.blocks[1].src, "func A") || !strings.Contains(e.blocks[1].src, "func B") {
		t.Errorf("the code fence was cut at its blank line: %q", e.blocks[1].src)
	}
	if rest := e.text[e.settled:]; rest != "After" {
		t.Errorf("open block = %q, want After", rest)
	}
	m, _, _ := newTestModel(t, 80, 20)
	m.streaming = e
	m.tr.add(e)
	f := frame(m)
	for _, want := range []string{"Intro paragraph.", "func A() {}", "func B() {}", "After"} {
		if !strings.Contains(f, want) {
			t.Errorf("streamed frame lacks %q:\n%s", want, f)
		}
	}
}

func TestLateProgressOfAClearedAgentIsIgnored(t *testing.T) {
	m, _, _ := newTestModel(t, 80, 20)
	feedEvents(m, taskStart(at(0), "c1", "explore", "Look", "background"), subStart(at(0), "explore-1", "c1", "explore", "Look", true))
	userAsk(m, "/clear")
	feedEvents(m, subUpdate(at(1), "explore-1", "c1", "ls", 1), subDone(at(2), "explore-1", "c1", 1, "late"))
	if len(m.trees) != 0 || strings.Contains(frame(m), "Explore") {
		t.Errorf("a cleared agent came back:\n%s", frame(m))
	}
}
