package runtime

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/mcp/mcptest"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// mcpRun starts servers for a runtime test; they close with the runtime.
func mcpRun(t *testing.T, warn func(string), servers ...mcp.Server) *mcp.Manager {
	t.Helper()
	return mcp.Start(context.Background(), servers, mcp.Options{Warn: warn, HandshakeTimeout: 20 * time.Second})
}

func TestLeadCallsAnMCPToolThroughTheModel(t *testing.T) {
	const scenario = `
rules:
  - {name: final, match: {tool_result_contains: "echo: hello"}, respond: {text: "the server said hello"}}
  - {name: call, match: {tools_include: [mcp__s__echo]}, respond: {tool_calls: [{name: mcp__s__echo, input: {text: hello}}]}}
`
	m := mcpRun(t, nil, mcp.Server{Name: "s", Type: mcp.HTTP, URL: mcptest.HTTP(t)})
	h, srv := startWith(t, scenario, Config{MCP: m})
	h.rt.Submit("use the echo tool")
	out := h.await(t)
	if out.Err != nil || out.Result != "the server said hello" {
		t.Fatalf("outcome = %+v; log %+v", out, srv.Log())
	}
}

func TestSubagentsGetTheMCPToolsTheirTypeNamesAndStartWithoutMissingOnesWarnedOnce(t *testing.T) {
	const scenario = `
rules:
  - {name: lead-final, match: {first_user_contains: "go", tool_result_contains: "sub saw"}, respond: {text: "all done"}}
  - {name: sub-final, match: {first_user_contains: "SUB", tool_result_contains: "echo: from sub"}, respond: {text: "sub saw echo: from sub"}}
  - {name: sub-call, match: {first_user_contains: "SUB", tools_include: [mcp__s__echo], tools_exclude: [bash, task]}, respond: {tool_calls: [{name: mcp__s__echo, input: {text: from sub}}]}}
  - name: lead-call
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "echo", prompt: "SUB echo please", subagent_type: echoer}}
        - {name: task, input: {description: "echo again", prompt: "SUB echo again", subagent_type: echoer}}
`
	w := &mcptest.Warnings{}
	m := mcpRun(t, w.Add, mcp.Server{Name: "s", Type: mcp.HTTP, URL: mcptest.HTTP(t)})
	types := spawn.NewRegistry(spawn.Builtins()...)
	types.Add(spawn.Type{Name: "echoer", Description: "echoes", Prompt: "You echo.", Tools: []string{"read", "mcp__s__echo", "mcp__gone"}})
	h, srv := startWith(t, scenario, Config{MCP: m, Types: types, Warn: w.Add})
	h.rt.Submit("go")
	out := h.await(t)
	if out.Err != nil || out.Result != "all done" {
		t.Fatalf("outcome = %+v; log %+v", out, srv.Log())
	}
	if ws := w.All(); len(ws) != 1 || !strings.Contains(ws[0], "agent type echoer: MCP tools mcp__gone are not available") {
		t.Errorf("warnings = %q, want one naming mcp__gone", ws)
	}
}

func TestADeniedMCPToolIsDeniedNamingThePattern(t *testing.T) {
	const scenario = `
rules:
  - {name: final, match: {has_tool_results: true}, respond: {text: "ok"}}
  - {name: call, match: {tools_include: [mcp__s__add]}, respond: {tool_calls: [{name: mcp__s__add, input: {a: 1, b: 2}}]}}
`
	gate, err := permission.NewGate(permission.Options{Mode: permission.BypassPermissions, Disallowed: []string{"mcp__s__*"}})
	if err != nil {
		t.Fatal(err)
	}
	m := mcpRun(t, nil, mcp.Server{Name: "s", Type: mcp.HTTP, URL: mcptest.HTTP(t)})
	h, srv := startWith(t, scenario, Config{MCP: m, Gate: gate})
	h.rt.Submit("add")
	h.await(t)
	results := lastToolResults(srv)
	if len(results) != 1 || !results[0].IsError || !strings.Contains(results[0].Content, `--disallowed-tools "mcp__s__*"`) {
		t.Fatalf("tool results = %+v, want a denial naming mcp__s__*", results)
	}
}

func TestAServerThatNeverAnswersDelaysTheFirstRequestOnlyByTheBudget(t *testing.T) {
	const scenario = `
rules:
  - {name: answer, match: {tools_include: [mcp__ok__echo]}, respond: {text: "answered"}}
`
	w := &mcptest.Warnings{}
	m := mcpRun(t, w.Add, mcp.Server{Name: "mute", Type: mcp.Stdio, Command: "sleep", Args: []string{"1000"}},
		mcp.Server{Name: "ok", Type: mcp.HTTP, URL: mcptest.HTTP(t)})
	h, srv := startWith(t, scenario, Config{MCP: m, MCPStartupBudget: 500 * time.Millisecond})
	begin := time.Now()
	h.rt.Submit("hi")
	out := h.await(t)
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("the run took %v with a 500ms budget", took)
	}
	if out.Err != nil || out.Result != "answered" {
		t.Fatalf("outcome = %+v; log %+v", out, srv.Log())
	}
	if ws := w.All(); len(ws) != 1 || !strings.Contains(ws[0], "mcp server mute: not ready after 500ms") {
		t.Errorf("warnings = %q", ws)
	}
	h.stop()
	if kids := mcptest.Children(t); len(kids) > 0 {
		t.Errorf("processes left after the runtime closed: %v", kids)
	}
}

func TestAServerLaterThanTheBudgetJoinsFromTheNextRequest(t *testing.T) {
	const scenario = `
rules:
  - {name: with, match: {tools_include: [mcp__slow__echo]}, respond: {text: "slow tools offered"}}
  - {name: without, match: {tools_exclude: [mcp__slow__echo]}, respond: {text: "no slow tools yet"}}
`
	w := &mcptest.Warnings{}
	m := mcpRun(t, w.Add, mcptest.SlowStdio(t, "slow", 800*time.Millisecond))
	h, _ := startWith(t, scenario, Config{MCP: m, MCPStartupBudget: 100 * time.Millisecond})
	h.rt.Submit("first")
	if out := h.await(t); out.Result != "no slow tools yet" {
		t.Fatalf("first outcome = %+v", out)
	}
	testkit.WaitFor(t, 20*time.Second, "the slow server", func() bool { return m.Statuses()[0].State == mcp.Ready })
	h.rt.Submit("second")
	if out := h.await(t); out.Result != "slow tools offered" {
		t.Fatalf("second outcome = %+v", out)
	}
	if ws := w.All(); len(ws) != 1 || !strings.Contains(ws[0], "mcp server slow: not ready after 100ms") {
		t.Errorf("warnings = %q", ws)
	}
}

func lastToolResults(srv *loopback.Server) []loopback.LogToolResult {
	log := srv.Log()
	for i := len(log) - 1; i >= 0; i-- {
		if r := log[i].LastToolResults(); len(r) > 0 {
			return r
		}
	}
	return nil
}

// The model's first call names a tool of a server still starting (npx on
// a cold cache): the call waits for the server instead of failing as an
// unknown tool, and its result reaches the model.
func TestACallToAToolOfAServerStillStartingWaitsForItInsteadOfFailing(t *testing.T) {
	const scenario = `
rules:
  - {name: final, match: {has_tool_results: true}, respond: {text: "done"}}
  - {name: call, match: {tools_exclude: [mcp__slow__echo]}, respond: {tool_calls: [{name: mcp__slow__echo, input: {text: cold}}]}}
`
	w := &mcptest.Warnings{}
	m := mcpRun(t, w.Add, mcptest.SlowStdio(t, "slow", 1500*time.Millisecond))
	h, srv := startWith(t, scenario, Config{MCP: m, MCPStartupBudget: 100 * time.Millisecond})
	h.rt.Submit("remember this")
	if out := h.await(t); out.Err != nil || out.Result != "done" {
		t.Fatalf("outcome = %+v; log %+v", out, srv.Log())
	}
	results := lastToolResults(srv)
	if len(results) != 1 || results[0].IsError || results[0].Content != "echo: cold" {
		t.Fatalf("tool results = %+v, want the slow server's echo", results)
	}
}

// An MCP server's progress notifications for a call become tool.progress
// events of that call (the lead's and a sub-agent's) and, for a
// sub-agent, its row's current-tool line.
func TestAnMCPServersProgressBecomesToolProgressAndTheSubagentRowsCurrentTool(t *testing.T) {
	const scenario = `
rules:
  - {name: lead-final, match: {first_user_contains: "go", tool_result_contains: "sub done"}, respond: {text: "all done"}}
  - {name: sub-final, match: {first_user_contains: "SUB", has_tool_results: true}, respond: {text: "sub done"}}
  - {name: sub-call, match: {first_user_contains: "SUB"}, respond: {tool_calls: [{name: mcp__s__steps, input: {steps: 2, hold_ms: 300}}]}}
  - {name: lead-task, match: {first_user_contains: "go", tool_result_contains: "3 steps"}, respond: {tool_calls: [{name: task, input: {description: "steps", prompt: "SUB run the steps"}}]}}
  - {name: lead-call, match: {first_user_contains: "go"}, respond: {tool_calls: [{name: mcp__s__steps, input: {steps: 3, hold_ms: 300}}]}}
`
	m := mcpRun(t, nil, mcp.Server{Name: "s", Type: mcp.HTTP, URL: mcptest.HTTP(t)})
	h, srv := startWith(t, scenario, Config{MCP: m})
	var mu sync.Mutex
	var evs []event.Event
	h.rt.Bus().SubscribeWith(func(e event.Event) { mu.Lock(); evs = append(evs, e); mu.Unlock() }, bus.Options{Records: true})
	h.rt.Submit("go")
	if out := h.await(t); out.Err != nil || out.Result != "all done" {
		t.Fatalf("outcome = %+v; log %+v", out, srv.Log())
	}
	var lead, sub, rows []string
	mu.Lock()
	defer mu.Unlock()
	for _, e := range evs {
		switch e.Type {
		case event.ToolProgress:
			d, _ := event.Payload[event.ToolProgressData](e.Data)
			if d.Name != "mcp__s__steps" || e.ToolCallID == "" {
				t.Errorf("progress event %+v names no call of mcp__s__steps", e)
			}
			if e.AgentID == event.LeadID {
				lead = append(lead, d.Line())
			} else {
				sub = append(sub, d.Line())
			}
		case event.AgentStatus:
			if r, ok := lifecycle.RecordOf(e); ok && strings.Contains(r.CurrentTool, "· step") && !slices.Contains(rows, r.CurrentTool) {
				rows = append(rows, r.CurrentTool)
			}
		}
	}
	if want := []string{"1/3 · step 1", "2/3 · step 2", "3/3 · step 3"}; !slices.Equal(lead, want) {
		t.Errorf("lead's progress = %q, want %q", lead, want)
	}
	if want := []string{"1/2 · step 1", "2/2 · step 2"}; !slices.Equal(sub, want) {
		t.Errorf("sub-agent's progress = %q, want %q", sub, want)
	}
	const cur = `mcp__s__steps {"hold_ms":300,"steps":2}` // the tool and its arguments, as before progress
	if want := []string{cur + " · 1/2 · step 1", cur + " · 2/2 · step 2"}; !slices.Equal(rows, want) {
		t.Errorf("the sub-agent's row showed %q, want %q", rows, want)
	}
}

// The built-in explore type gets the MCP tools their server marks
// read-only (echo), never the others (add), beside its own four.
func TestTheExploreTypeGetsTheMCPToolsMarkedReadOnlyAndNoOthers(t *testing.T) {
	const scenario = `
rules:
  - {name: lead-final, match: {first_user_contains: "go", has_tool_results: true}, respond: {text: "lead saw the explore result"}}
  - {name: sub-right, match: {first_user_contains: "SUB", has_tool_results: true}, respond: {text: "explore answered"}}
  - {name: sub-call, match: {first_user_contains: "SUB", tools_include: [read, mcp__s__echo, mcp__s__pid], tools_exclude: [mcp__s__add, mcp__s__hang, bash, write]}, respond: {tool_calls: [{name: mcp__s__echo, input: {text: read-only}}]}}
  - {name: sub-wrong, match: {first_user_contains: "SUB"}, respond: {text: "explore had the wrong tools"}}
  - {name: lead-task, match: {first_user_contains: "go"}, respond: {tool_calls: [{name: task, input: {description: "look", prompt: "SUB look around", subagent_type: explore}}]}}
`
	m := mcpRun(t, nil, mcp.Server{Name: "s", Type: mcp.HTTP, URL: mcptest.HTTP(t)})
	h, srv := startWith(t, scenario, Config{MCP: m})
	h.rt.Submit("go")
	if out := h.await(t); out.Err != nil || out.Result != "lead saw the explore result" {
		t.Fatalf("outcome = %+v; log %+v", out, srv.Log())
	}
	var subResults []loopback.LogToolResult
	for _, e := range srv.Log() {
		if e.Rule == "sub-right" {
			subResults = append(subResults, e.LastToolResults()...)
		}
	}
	if len(subResults) != 1 || subResults[0].IsError || subResults[0].Content != "echo: read-only" {
		t.Fatalf("explore's tool results = %+v, want the echo", subResults)
	}
}
