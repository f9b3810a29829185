package ui

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/mcp"
)

func TestMCPListsEachServerWithStateTransportToolsAndLastError(t *testing.T) {
	m, b, _ := newTestModel(t, 120, 30)
	b.mcp = []mcp.Status{
		{Name: "github", Transport: mcp.HTTP, State: mcp.Ready, Tools: 12},
		{Name: "files", Transport: mcp.Stdio, State: mcp.Starting},
		{Name: "broken", Transport: mcp.Stdio, State: mcp.Failed, Err: "mcp server broken: handshake: EOF"},
	}
	userAsk(m, "/mcp")
	f := frame(m)
	for _, want := range []string{"github · ready · http · 12 tools", "files · starting · stdio · 0 tools",
		"broken · failed · stdio · 0 tools", "mcp server broken: handshake: EOF"} {
		if !strings.Contains(f, want) {
			t.Errorf("/mcp lacks %q:\n%s", want, f)
		}
	}
}

func TestMCPSaysHowToConfigureWhenThereAreNoServers(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 30)
	userAsk(m, "/mcp")
	if f := frame(m); !strings.Contains(f, "No MCP servers") || !strings.Contains(f, ".mcp.json") {
		t.Errorf("/mcp with none:\n%s", f)
	}
}

func TestANoteSentDuringTheRunShowsAsAWarning(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 30)
	m.Update(noteMsg("mcp server mute: not ready after 5s"))
	if f := frame(m); !strings.Contains(f, "mcp server mute: not ready after 5s") {
		t.Errorf("note not shown:\n%s", f)
	}
}

func TestHelpListsMCP(t *testing.T) {
	if !strings.Contains(helpText, "/mcp") {
		t.Error("helpText does not list /mcp")
	}
}
