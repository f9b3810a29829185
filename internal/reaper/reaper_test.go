package reaper

import "testing"

func TestTheCommandsThatStartAgentsAdoptAndEndTheirDescendants(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{nil, true}, // the chat UI
		{[]string{"--resume"}, true},
		{[]string{"run", "-p", "hi"}, true},
		{[]string{"acp"}, true}, // an editor's agent: its sub-agents' commands end with it
		{[]string{"sessions"}, false},
		{[]string{"loopback", "--scenario", "f"}, false},
		{[]string{"--help"}, false},
		{[]string{"run", "--help"}, false}, // a command's help starts nothing
		{[]string{"acp", "-h"}, false},
		{[]string{"run", "-p", "--help"}, true}, // the prompt "--help"
		{[]string{"run", "--model", "m", "--help"}, true},
	}
	for _, tt := range tests {
		if got := StartsAgents(tt.args); got != tt.want {
			t.Errorf("StartsAgents(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
