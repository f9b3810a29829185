package permission

import "testing"

func TestAPromptNamesANestedAgentByItsPathAndALeadsChildByItsName(t *testing.T) {
	for _, c := range []struct{ path, name, want string }{
		{"lead › reviewer-1 › explore-3", "explore-3", "lead › reviewer-1 › explore-3"},
		{"lead › explore-1", "explore-1", "explore-1"},
		{"", "lead", "lead"},
	} {
		if got := (Request{Path: c.path, AgentName: c.name}).Who(); got != c.want {
			t.Errorf("Who() of %q / %q = %q, want %q", c.path, c.name, got, c.want)
		}
	}
}
