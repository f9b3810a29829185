//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// The reference "everything" server, slow to start as npx -y is on a cold
// cache: the lead's first request goes out without its tools, the model
// calls its long-running tool anyway, the call waits for the server
// instead of failing as an unknown tool, and the server's progress
// notifications come out of stream-json as tool.progress events.
func TestAToolOfAServerStillStartingWaitsForItAndItsProgressIsStreamed(t *testing.T) {
	everything := testkit.MCPEverything(t)
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": "sh", "args": []string{"-c", "sleep 2; exec " + everything + " stdio"},
			"env": map[string]string{"ATOMIC_E2E_MCP": "1"}},
	}})
	srv := server(t, `
rules:
  - {name: final, match: {tool_result_contains: "Long running operation completed"}, respond: {text: "the long operation finished"}}
  - name: cold-call
    match: {tools_exclude: [mcp__everything__echo], has_tool_results: false}
    respond: {tool_calls: [{name: mcp__everything__trigger-long-running-operation, input: {duration: 2, steps: 4}}]}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ws := t.TempDir()
	cmd := command(t, ctx, srv, "anthropic", ws, "-p", "run the long operation", "--output-format", "stream-json",
		"--permission-mode", "bypassPermissions", "--mcp-config", string(cfg))
	cmd.Env = append(cmd.Env, "MCP_TIMEOUT=200")
	home := strings.TrimPrefix(cmd.Env[slicesIndex(cmd.Env, "HOME=")], "HOME=")
	r := runCmd(t, cmd)
	if r.code != 0 {
		t.Fatalf("code %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	if !strings.Contains(r.stderr, "mcp server everything: not ready after 200ms") {
		t.Errorf("the server was not still starting at the first request; stderr:\n%s", r.stderr)
	}
	evs := events(t, r.stdout)
	var progress []string
	var callID string
	for _, e := range evs {
		switch e.Type {
		case event.ToolStart:
			if d := data[event.ToolStartData](t, e); d.Name == "mcp__everything__trigger-long-running-operation" {
				callID = e.ToolCallID
			}
		case event.ToolProgress:
			d := data[event.ToolProgressData](t, e)
			if e.ToolCallID != callID || d.Name != "mcp__everything__trigger-long-running-operation" {
				t.Errorf("progress %+v on call %s, want the long operation's call %s", d, e.ToolCallID, callID)
			}
			progress = append(progress, d.Line())
		case event.ToolComplete:
			if d := data[event.ToolCompleteData](t, e); !d.Success {
				t.Errorf("%s failed: %s", d.Name, d.Error)
			}
		}
	}
	// The last step's notification may cross the answer and be dropped.
	if len(progress) < 3 || progress[0] != "1/4" || progress[1] != "2/4" || progress[2] != "3/4" {
		t.Errorf("progress %q, want 1/4, 2/4, 3/4 (and maybe 4/4)", progress)
	}
	if last := evs[len(evs)-1]; last.Type != event.Complete || data[event.CompleteData](t, last).Result != "the long operation finished" {
		t.Errorf("last event %s %s", last.Type, last.Data)
	}
	if left := cliProcesses("mcp-server-", home, mcpMarker); len(left) > 0 {
		t.Errorf("MCP server processes left after the run: %v", left)
	}
}
