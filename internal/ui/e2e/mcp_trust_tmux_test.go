//go:build unix

package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// The chat UI asks before it starts a server of the workspace's
// .mcp.json the user has not approved, showing its command and file:
// denied, it does not run (and is asked again next time); allowed once
// (y), it starts this time only; allowed with a, the approval is
// remembered, so the next session starts it without asking.
func TestTheChatUIAsksBeforeStartingAnUnapprovedProjectMcpServer(t *testing.T) {
	tmp := t.TempDir()
	marker := filepath.Join(tmp, "started")
	mcpJSON, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"probe": map[string]any{"command": "sh", "args": []string{"-c", "touch " + marker}},
	}})
	testkit.WriteFiles(t, filepath.Join(tmp, "work"), map[string]string{".mcp.json": string(mcpJSON)})
	srv := startServer(t, `
rules:
  - {name: hi, match: {}, respond: {text: "hello"}}
`)
	open := func() *screen {
		return launchIn(t, tmp, []string{"ANTHROPIC_API_KEY=test-key"},
			"--provider", "anthropic", "--base-url", shellQuote(srv.URL()), "--model", "test-model")
	}
	started := func() bool {
		_, err := os.Stat(marker)
		return !errors.Is(err, os.ErrNotExist)
	}

	s := open()
	s.waitFor("Approval needed", "the project's MCP server probe:", "sh -c", filepath.Join(tmp, "work", ".mcp.json"), "Allow once (y)")
	s.keys("n")
	s.waitFor("mcp server probe not started; approve it later with 'atomic mcp trust probe'")
	time.Sleep(300 * time.Millisecond)
	if started() {
		t.Fatal("the denied server ran")
	}
	s.kill()

	// y: this time only.
	s = open()
	s.waitFor("Approval needed", "the project's MCP server probe:", "It has not been approved before.")
	s.keys("y")
	s.waitFor("mcp server probe approved for this session; starting it")
	s.waitUntil("the approved server to start", func(string) bool { return started() })
	approvals := filepath.Join(tmp, "home", "atomic", "trusted-mcp.json")
	if _, err := os.Stat(approvals); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("allowed once, yet remembered: %v", err)
	}
	s.kill()

	// a: remembered.
	os.Remove(marker)
	s = open()
	s.waitFor("Approval needed", "the project's MCP server probe:")
	s.keys("a")
	s.waitFor("mcp server probe approved and remembered; starting it")
	s.waitUntil("the approved server to start", func(string) bool { return started() })
	if fi, err := os.Stat(approvals); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("approvals file: %v %v", fi, err)
	}
	s.kill()

	os.Remove(marker)
	s = open()
	s.waitUntil("the remembered server to start without a question", func(string) bool { return started() })
	if scr := s.waitFor("Ask anything"); strings.Contains(scr, "Approval needed") {
		t.Errorf("asked again about an approved server:\n%s", scr)
	}
}
