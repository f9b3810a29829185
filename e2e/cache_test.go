package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/headless"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/stats"
)

// cacheScenario: the lead reads a file, starts two sub-agents that read
// twice each and a teammate that reports, and ends once the team is shut
// down: every kind of native agent over several turns.
const cacheScenario = `
rules:
  - name: sub-0
    match: {first_user_contains: "TASK-0"}
    sequence:
      - {tool_calls: [{name: read, input: {file_path: notes.txt}}]}
      - {tool_calls: [{name: read, input: {file_path: notes.txt}}]}
      - {text: "sub 0 done"}
  - name: sub-1
    match: {first_user_contains: "TASK-1"}
    sequence:
      - {tool_calls: [{name: read, input: {file_path: notes.txt}}]}
      - {tool_calls: [{name: read, input: {file_path: notes.txt}}]}
      - {text: "sub 1 done"}
  - name: ann-report
    match: {system_contains: "You are ann, a teammate", has_tool_results: false, last_user_contains: "Assignment"}
    respond: {tool_calls: [{name: send_message, input: {to: lead, content: "report from ann"}}]}
  - {name: ann-wait, match: {system_contains: "You are ann, a teammate"}, respond: {text: "waiting"}}
  - name: lead-shutdown
    match: {system_contains: "You are Atomic", last_user_contains: "All teammates are idle", has_tool_results: false}
    respond: {tool_calls: [{name: shutdown_request, input: {to: ann}}]}
  - {name: lead-final, match: {system_contains: "You are Atomic", tool_result_contains: "Shutdown requested"}, respond: {text: "all done"}}
  - name: lead-read
    match: {system_contains: "You are Atomic", has_tool_results: false, last_user_contains: "go"}
    respond: {tool_calls: [{name: read, input: {file_path: notes.txt}}]}
  - name: lead-fanout
    match: {system_contains: "You are Atomic", tool_result_contains: "NOTES"}
    respond:
      tool_calls:
        - {name: task, input: {description: "look 0", prompt: "TASK-0 look"}}
        - {name: task, input: {description: "look 1", prompt: "TASK-1 look"}}
        - {name: team_create, input: {name: crew}}
  - name: lead-spawn
    match: {system_contains: "You are Atomic", tool_result_contains: "crew"}
    respond: {tool_calls: [{name: team_spawn, input: {name: ann, role: worker, prompt: "Assignment for ann: report."}}]}
  - {name: lead-note, match: {system_contains: "You are Atomic"}, respond: {text: "noted"}}
`

// cacheFanOutScenario: the lead starts n sub-agents at once; each reads a
// file turns-1 times, then answers (turns requests each).
func cacheFanOutScenario(n, turns int) string {
	var b strings.Builder
	b.WriteString("rules:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: sub-%d\n    match: {first_user_contains: \"TASK-%d \"}\n    sequence:\n", i, i)
		for range turns - 1 {
			b.WriteString("      - {tool_calls: [{name: read, input: {file_path: notes.txt}}]}\n")
		}
		fmt.Fprintf(&b, "      - {text: \"sub %d done\"}\n", i)
	}
	b.WriteString("  - {name: final, match: {system_contains: \"You are Atomic\", has_tool_results: true}, respond: {text: done}}\n")
	b.WriteString("  - name: fanout\n    match: {system_contains: \"You are Atomic\"}\n    respond:\n      tool_calls:\n")
	for i := range n {
		fmt.Fprintf(&b, "        - {name: task, input: {description: \"task %d\", prompt: \"TASK-%d look\"}}\n", i, i)
	}
	return b.String()
}

// cacheAgent names the agent that sent e: lead, sub-0, sub-1 or ann.
func cacheAgent(e loopback.LogEntry) string {
	switch {
	case strings.Contains(e.System, "You are Atomic,"):
		return "lead"
	case strings.Contains(e.System, "You are ann"):
		return "ann"
	case len(e.Messages) > 0 && strings.Contains(e.Messages[0].Text, "TASK-0"):
		return "sub-0"
	case len(e.Messages) > 0 && strings.Contains(e.Messages[0].Text, "TASK-1"):
		return "sub-1"
	}
	return "?"
}

// cacheRun runs cacheScenario with its sub-agents one at a time (so the
// second starts after the first wrote its prefix) and returns each
// agent's requests in order, and the json result.
func cacheRun(t *testing.T, prov string) (map[string][]loopback.LogEntry, headless.Result) {
	t.Helper()
	srv := server(t, cacheScenario)
	ws := workspace(t, map[string]string{"notes.txt": "NOTES: " + strings.Repeat("a line of notes\n", 40)})
	r := atomic(t, srv, prov, ws, "-p", "go", "--output-format", "json", "--permission-mode", "bypassPermissions",
		"--teams", "--max-subagents", "1", "--model", map[string]string{"anthropic": "claude-sonnet-4-5", "openai": "gpt-4.1"}[prov])
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	var res headless.Result
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("result: %v\n%s", err, r.stdout)
	}
	byAgent := map[string][]loopback.LogEntry{}
	for _, e := range srv.Log() {
		if e.Status != 200 {
			t.Errorf("request %d (%s) answered %d: %s", e.Seq, e.Rule, e.Status, e.Outcome)
		}
		byAgent[cacheAgent(e)] = append(byAgent[cacheAgent(e)], e)
	}
	for _, a := range []string{"lead", "sub-0", "sub-1", "ann"} {
		if len(byAgent[a]) < 2 {
			t.Fatalf("%s made %d requests, want several; log by agent: %v", a, len(byAgent[a]), byAgent)
		}
	}
	for a, entries := range byAgent {
		for _, e := range entries {
			t.Logf("%s #%d %s: input %d, read %d, write %d, breakpoints %d, key %s", a, e.Seq, e.Rule, e.InputTokens, e.CacheReadTokens, e.CacheWriteTokens, len(e.CacheBreakpoints), e.PromptCacheKey)
		}
	}
	if len(byAgent["?"]) > 0 {
		t.Fatalf("requests of no known agent: %+v", byAgent["?"])
	}
	return byAgent, res
}

func TestEveryAnthropicRequestOfLeadSubagentAndTeammateMarksToolsSystemAndTheLastMessage(t *testing.T) {
	byAgent, res := cacheRun(t, "anthropic")
	for agent, entries := range byAgent {
		for i, e := range entries {
			bps := e.CacheBreakpoints
			if len(bps) < 3 || len(bps) > 4 || bps[0].Place != fmt.Sprintf("tools[%d]", len(e.Tools)-1) || bps[1].Place != "system[0]" ||
				!strings.HasPrefix(bps[len(bps)-1].Place, fmt.Sprintf("messages[%d].", len(e.Messages)-1)) {
				t.Errorf("%s request %d: breakpoints %+v, want the last tool, the system prompt and the last message", agent, i+1, bps)
				continue
			}
			if i == 0 {
				continue
			}
			// Byte-identical from one turn to the next: this request reads
			// exactly what the one before wrote at its moving end.
			prev := entries[i-1].CacheBreakpoints
			if end := prev[len(prev)-1]; e.CacheReadHash != end.Hash {
				t.Errorf("%s request %d read %d tokens of %s, want the %d of %s its previous request wrote", agent, i+1, e.CacheReadTokens, e.CacheReadHash, end.Tokens, end.Hash)
			}
		}
	}
	// The fan-out's siblings share tools and system prompt: the second
	// starts by reading what the first wrote.
	first, second := byAgent["sub-0"][0], byAgent["sub-1"][0]
	if shared := first.CacheBreakpoints[1]; second.CacheBreakpoints[1].Hash != shared.Hash || second.CacheReadHash != shared.Hash {
		t.Errorf("second sibling: system prefix %s, read %s; want the first's %s", second.CacheBreakpoints[1].Hash, second.CacheReadHash, shared.Hash)
	}
	checkCacheUsage(t, "claude-sonnet-4-5", byAgent, res)
}

func TestOpenAIRequestsCarryAPromptCacheKeyPerAgentSharedBySiblings(t *testing.T) {
	byAgent, res := cacheRun(t, "openai")
	keys := map[string]string{}
	for agent, entries := range byAgent {
		for i, e := range entries {
			if e.PromptCacheKey == "" || (i > 0 && e.PromptCacheKey != entries[0].PromptCacheKey) {
				t.Errorf("%s request %d: prompt_cache_key %q, want %q on every request", agent, i+1, e.PromptCacheKey, entries[0].PromptCacheKey)
			}
			if i > 0 && e.CacheReadTokens == 0 {
				t.Errorf("%s request %d read nothing from the cache", agent, i+1)
			}
		}
		keys[agent] = entries[0].PromptCacheKey
	}
	if keys["sub-0"] != keys["sub-1"] || keys["lead"] == keys["sub-0"] || keys["ann"] == keys["lead"] || keys["ann"] == keys["sub-0"] {
		t.Errorf("keys %v: want one per agent, one for both siblings", keys)
	}
	if want := provider.PromptCacheKey(res.SessionID, "lead"); keys["lead"] != want {
		t.Errorf("lead key %s, want %s", keys["lead"], want)
	}
	checkCacheUsage(t, "gpt-4.1", byAgent, res)
}

// checkCacheUsage: the json result's usage is the log's, cache reads and
// writes included, and its cost prices them.
func checkCacheUsage(t *testing.T, model string, byAgent map[string][]loopback.LogEntry, res headless.Result) {
	t.Helper()
	var read, write int64
	for _, entries := range byAgent {
		for _, e := range entries {
			read, write = read+int64(e.CacheReadTokens), write+int64(e.CacheWriteTokens)
		}
	}
	u := res.Usage
	if u.CacheReadTokens != read || u.CacheCreationTokens != write || read == 0 {
		t.Errorf("result usage read %d, write %d; the model reported read %d, write %d", u.CacheReadTokens, u.CacheCreationTokens, read, write)
	}
	want, ok := provider.Cost(model, u)
	if !ok || res.TotalCostUSD == nil || *res.TotalCostUSD < want-1e-9 || *res.TotalCostUSD > want+1e-9 {
		t.Errorf("total cost %v, want %g: %s's prices for %+v", res.TotalCostUSD, want, model, u)
	}
	full := u
	full.InputTokens += full.CacheReadTokens + full.CacheCreationTokens
	full.CacheReadTokens, full.CacheCreationTokens = 0, 0
	if uncached, _ := provider.Cost(model, full); want >= uncached {
		t.Errorf("cost with caching %g, not less than the %g of the same tokens uncached", want, uncached)
	}
}

func TestStatsCountPromptCacheReadsAndWritesPerType(t *testing.T) {
	state := t.TempDir()
	srv := server(t, cacheFanOutScenario(2, 3))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ws := workspace(t, map[string]string{"notes.txt": strings.Repeat("a line of notes\n", 40)})
	cmd := command(t, ctx, srv, "anthropic", ws, "-p", "go", "--permission-mode", "bypassPermissions")
	cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+state)
	if r := runCmd(t, cmd); r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	var read, write int64
	for _, e := range srv.Log() {
		read, write = read+int64(e.CacheReadTokens), write+int64(e.CacheWriteTokens)
	}
	st := exec.Command(binary, "stats", "--json")
	st.Env = []string{"HOME=" + t.TempDir(), "XDG_STATE_HOME=" + state}
	out, err := st.Output()
	if err != nil {
		t.Fatalf("atomic stats: %v", err)
	}
	var rows []stats.Row
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("atomic stats --json printed %q: %v", out, err)
	}
	var gotRead, gotWrite int64
	for _, r := range rows {
		gotRead, gotWrite = gotRead+r.CacheReadTokens, gotWrite+r.CacheWriteTokens
		if r.CacheReadTokens == 0 {
			t.Errorf("%s row read nothing from the cache: %+v", r.Type, r)
		}
	}
	if gotRead != read || gotWrite != write {
		t.Errorf("stats read %d, wrote %d; the model reported %d and %d", gotRead, gotWrite, read, write)
	}
	text := exec.Command(binary, "stats")
	text.Env = st.Env
	if tout, err := text.Output(); err != nil || !strings.Contains(string(tout), "cache read") {
		t.Errorf("atomic stats: %v\n%s", err, tout)
	}
}
