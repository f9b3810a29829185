//go:build unix

package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// What a Claude Code user brings to a project works in the real terminal:
// the project's CLAUDE.md reaches the model and /memory names it, a custom
// command from .claude/commands expands (the chat shows what was typed),
// the lead's todo_write shows as a checklist under its message, a tool of
// a stdio MCP server from .mcp.json runs, and /mcp lists the server.
func TestAProjectsMemoryCommandsPlanAndMCPServerWorkInTheTerminal(t *testing.T) {
	everything := testkit.MCPEverything(t)
	tmp := t.TempDir()
	mcpJSON, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": everything, "args": []string{"stdio"}},
	}})
	testkit.WriteFiles(t, filepath.Join(tmp, "work"), map[string]string{
		"CLAUDE.md":                  "Always answer in haiku. MEMORY-MARK-7\n",
		".claude/commands/triage.md": "---\ndescription: Triage an issue\nargument-hint: ISSUE\n---\nTriage issue $ARGUMENTS carefully.\n",
		".mcp.json":                  string(mcpJSON),
	})
	srv := startServer(t, `
rules:
  - {name: answer, match: {tool_result_contains: "Echo: triaged"}, respond: {text: "Issue 42 triaged."}}
  - name: echo
    match: {tool_result_contains: "Plan saved"}
    respond:
      tool_calls: [{name: mcp__everything__echo, input: {message: "triaged"}}]
  - name: plan
    match: {last_user_contains: "Triage issue 42 carefully."}
    respond:
      text: "Planning."
      tool_calls:
        - name: todo_write
          input:
            todos:
              - {content: "Read the issue", status: completed, activeForm: "Reading the issue"}
              - {content: "Reproduce it", status: in_progress, activeForm: "Reproducing it"}
              - {content: "Write the fix", status: pending, activeForm: "Writing the fix"}
`)
	s := launchIn(t, tmp, []string{"ANTHROPIC_API_KEY=test-key"},
		"--provider", "anthropic", "--base-url", shellQuote(srv.URL()), "--model", "test-model",
		"--allowed-tools", shellQuote("mcp__everything__*"), "--trust-project-mcp")
	s.waitFor("Ask anything")

	s.typeLine("/help")
	s.waitFor("/triage ISSUE", "Triage an issue")

	s.typeLine("/triage 42")
	scr := s.waitFor("/triage 42", "Plan · 1/3 done", "☑ Read the issue", "◐ Reproducing it", "☐ Write the fix", "Issue 42 triaged.")
	if strings.Contains(scr, "❯ Triage issue 42") {
		t.Errorf("the chat shows the expansion instead of what was typed:\n%s", scr)
	}
	var plan, echo bool
	for _, e := range srv.Log() {
		if e.Rule == "plan" {
			plan = strings.Contains(e.System, "MEMORY-MARK-7")
		}
		if e.Rule == "echo" {
			echo = true
			if !contains(e.Tools, "mcp__everything__echo") {
				t.Errorf("the request that called the MCP tool did not offer it: %v", e.Tools)
			}
		}
	}
	if !plan || !echo {
		t.Fatalf("the lead's first request carried the CLAUDE.md = %v; the MCP call was answered = %v\n%s", plan, echo, rulesLog(srv, ""))
	}

	s.typeLine("/mcp")
	s.waitFor("MCP servers:", "everything · ready · stdio")
	s.typeLine("/memory")
	s.waitFor("Memory files, in prompt order:", "work/CLAUDE.md · ", "1 line")
	s.keys("C-c")
	s.keys("C-c")
	deadline := time.Now().Add(10 * time.Second)
	for !s.exited() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if procs := descendants(s.pid); len(procs) > 0 {
		t.Errorf("processes left after quitting:%s", describe(procs))
	}
}

func contains(list []string, want string) bool {
	for _, s := range list {
		if s == want {
			return true
		}
	}
	return false
}
