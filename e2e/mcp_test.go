//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/mcp/mcptest"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// mcpMarker is in the environment of every MCP server the run starts, so
// the test can find any left running.
const mcpMarker = "ATOMIC_E2E_MCP=1"

const mcpScenario = `
rules:
  - {name: sub-final, match: {first_user_contains: "SUB", tool_result_contains: "Echo: from sub"}, respond: {text: "sub saw Echo: from sub"}}
  - {name: sub-call, match: {first_user_contains: "SUB", tools_include: [mcp__everything__echo]}, respond: {tool_calls: [{name: mcp__everything__echo, input: {message: from sub}}]}}
  - name: lead-final
    match: {first_user_contains: "LEAD", tool_results_contain_all: ["Echo: from lead", "echo: from go", "notes from the workspace", "mcp__everything__get-*", "sub saw"]}
    respond: {text: "all MCP tools answered"}
  - name: lead-call
    match: {first_user_contains: "LEAD", tools_include: [task, mcp__everything__echo, mcp__go__echo, mcp__fs__read_text_file, mcp__everything__get-sum]}
    respond:
      tool_calls:
        - {name: mcp__everything__echo, input: {message: from lead}}
        - {name: mcp__go__echo, input: {text: from go}}
        - {name: mcp__fs__read_text_file, input: {path: "WS/notes.txt"}}
        - {name: mcp__everything__get-sum, input: {a: 1, b: 2}}
        - {name: task, input: {description: "echo", prompt: "SUB echo please", subagent_type: echoer}}
`

// TestRunUsesMCPServersFromTheProjectsMcpJson runs atomic with a
// .mcp.json naming the npm reference servers over stdio, a Go server over
// streamable HTTP, a server that never answers and a malformed entry: the
// lead and a sub-agent call their tools through the loopback model, a
// disallowed glob denies one naming the pattern, the silent server is
// reported within MCP_TIMEOUT and the run still answers, the bad entry is
// reported as path: why, and no server process outlives the run.
func TestRunUsesMCPServersFromTheProjectsMcpJson(t *testing.T) {
	everything, filesystem := testkit.MCPEverything(t), testkit.MCPFilesystem(t)
	ws := workspace(t, map[string]string{
		"notes.txt":                "notes from the workspace",
		".atomic/agents/echoer.md": "---\nname: echoer\ndescription: Echoes through MCP.\ntools: mcp__everything__echo\n---\nYou echo.\n",
	})
	marker := map[string]string{"ATOMIC_E2E_MCP": "1"}
	cfg := map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": everything, "args": []string{"stdio"}, "env": marker},
		"fs":         map[string]any{"type": "stdio", "command": filesystem, "args": []string{"${ATOMIC_E2E_FS_ROOT:-" + ws + "}"}, "env": marker},
		"go":         map[string]any{"type": "http", "url": mcptest.HTTP(t)},
		"mute":       map[string]any{"command": "sh", "args": []string{"-c", "sleep 1000 & sleep 1000"}, "env": marker},
		"broken":     map[string]any{"type": "websocket", "url": "ws://localhost:1"},
	}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := server(t, strings.ReplaceAll(mcpScenario, "WS/", ws+"/"))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", ws, "-p", "LEAD go", "--output-format", "stream-json",
		"--permission-mode", "bypassPermissions", "--disallowed-tools", "mcp__everything__get-*",
		"--trust-project-mcp") // the project's servers are approved for this run
	cmd.Env = append(cmd.Env, "MCP_TIMEOUT=1500")
	home := strings.TrimPrefix(cmd.Env[slicesIndex(cmd.Env, "HOME=")], "HOME=")
	r := runCmd(t, cmd)
	if r.code != 0 {
		t.Fatalf("code %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	evs := events(t, r.stdout)
	last := evs[len(evs)-1]
	if last.Type != event.Complete || data[event.CompleteData](t, last).Result != "all MCP tools answered" {
		t.Fatalf("last event %s %s; stderr %s", last.Type, last.Data, r.stderr)
	}
	denied := false
	for _, e := range evs {
		if e.Type != event.ToolComplete {
			continue
		}
		d := data[event.ToolCompleteData](t, e)
		if d.Name == "mcp__everything__get-sum" {
			denied = !d.Success && strings.Contains(d.Error+d.Result, `is disallowed by --disallowed-tools "mcp__everything__get-*"`)
			if !denied {
				t.Errorf("get-sum completed %+v, want denied naming the pattern", d)
			}
		}
	}
	if !denied {
		t.Error("no tool.complete of mcp__everything__get-sum")
	}
	for _, want := range []string{
		"atomic: warning: mcp server mute: not ready after 1.5s",
		"atomic: warning: mcp config " + filepath.Join(ws, ".mcp.json") + `: mcpServers.broken: unknown type "websocket"`,
	} {
		if strings.Count(r.stderr, want) != 1 {
			t.Errorf("stderr has %q %d times, want once:\n%s", want, strings.Count(r.stderr, want), r.stderr)
		}
	}
	if left := cliProcesses("mcp-server-", home, mcpMarker); len(left) > 0 {
		t.Errorf("MCP server processes left after the run: %v", left)
	}
}

func slicesIndex(env []string, prefix string) int {
	for i, e := range env {
		if strings.HasPrefix(e, prefix) {
			return i
		}
	}
	return -1
}
