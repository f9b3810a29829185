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
