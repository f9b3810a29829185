package backend

import (
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

func TestChildrenNamesSubagentsAndRewritesTheCLIsIDsOfBoundOnesToOurs(t *testing.T) {
	c := NewChildren[struct{}](Config{})
	a, b := c.Name("general-purpose"), c.Name("general-purpose")
	if a != "general-purpose-1" || b != "general-purpose-2" {
		t.Fatalf("names %q %q, want general-purpose-1 and -2", a, b)
	}
	if got := c.Rewrite("agent_id: 0199-aa"); got != "agent_id: 0199-aa" {
		t.Errorf("nothing bound: %q changed", got)
	}
	c.Bind("0199-aa", a)
	c.Bind("0199-aa-long", b) // starts with the other's id
	if id, ok := c.Ours("0199-aa-long"); !ok || id != b {
		t.Errorf("Ours = %q %v", id, ok)
	}
	if got := c.Rewrite("spawned 0199-aa-long, then 0199-aa"); got != "spawned general-purpose-2, then general-purpose-1" {
		t.Errorf("Rewrite = %q", got)
	}
	d := c.RewriteData(event.ToolCompleteData{Name: "read_agent", Result: "agent_id: 0199-aa idle"}).(event.ToolCompleteData)
	if d.Result != "agent_id: general-purpose-1 idle" || d.Name != "read_agent" {
		t.Errorf("tool result %+v", d)
	}
	in := c.RewriteData(event.ToolStartData{Name: "read_agent", Input: []byte(`{"agent_id":"0199-aa"}`)}).(event.ToolStartData)
	if string(in.Input) != `{"agent_id":"general-purpose-1"}` {
		t.Errorf("tool input %s", in.Input)
	}
	m := c.RewriteData(event.MessageCompleteData{Text: "0199-aa is done"}).(event.MessageCompleteData)
	if m.Text != "general-purpose-1 is done" {
		t.Errorf("message %q", m.Text)
	}
}

func TestChildrenRecordEachSubagentUnderItsParentAndFindItByTheCLIsIDs(t *testing.T) {
	c := NewChildren[int](Config{SessionID: "s1"})
	a := c.New("explore", "lead", "toolu_1")
	b := c.New("explore", a.ID, "toolu_2")
	if a.ID != "explore-1" || a.SessionID != "s1/explore-1" || a.Parent != "lead" || b.Parent != "explore-1" {
		t.Fatalf("records %+v %+v", a, b)
	}
	c.Bind("thread-b", b.ID)
	c.Alias("task-a", a)
	if c.Of("toolu_1") != a || c.Of("task-a") != a || c.Of("thread-b") != b || c.Of("") != nil || c.Get(b.ID) != b {
		t.Error("a CLI id does not find its sub-agent")
	}
	if got := c.Rewrite("task-a thread-b"); got != "task-a explore-2" {
		t.Errorf("Rewrite = %q: want only the bound id replaced", got)
	}
	a.Done = true
	if open := c.Open(); len(open) != 1 || open[0] != b || len(c.All()) != 2 {
		t.Errorf("Open = %v", open)
	}
}

func TestChildrenLedgerClosesEachToolCallOnceAndTheOpenOnesBeforeTheirAgentEnds(t *testing.T) {
	c := NewChildren[struct{}](Config{})
	if !c.StartCall("a", "c2", "bash") || !c.StartCall("a", "c1", "read") || !c.StartCall("b", "c1", "grep") {
		t.Fatal("a new call was refused")
	}
	if c.StartCall("a", "c1", "read") {
		t.Error("a repeated start was taken")
	}
	if !c.HasCall("c2") || c.HasCall("c9") {
		t.Error("HasCall")
	}
	if name, ok := c.EndCall("b", "c1"); !ok || name != "grep" {
		t.Errorf("EndCall = %q %v", name, ok)
	}
	if _, ok := c.EndCall("b", "c1"); ok {
		t.Error("a call ended twice")
	}
	closed := c.CloseCalls("a")
	if len(closed) != 2 || closed[0] != (Call{"c1", "read"}) || closed[1] != (Call{"c2", "bash"}) {
		t.Errorf("CloseCalls = %v, want a's two open calls by id", closed)
	}
	if _, ok := c.EndCall("a", "c2"); ok {
		t.Error("a late end of a closed call was taken")
	}
	if open, ended := c.CallState("a", "c2"); open || !ended {
		t.Errorf("CallState = %v %v", open, ended)
	}
	if c.StartCall("a", "c2", "bash") || len(c.CloseCalls("a")) != 0 {
		t.Error("a closed call reopened")
	}
}
