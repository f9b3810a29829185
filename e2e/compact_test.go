//go:build unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
)

// The window every agent of these runs has: config context_window for a
// model the pricing table does not know, and the loopback's too.
const compactWindow = 40000

// bigWorkspace holds n files of about 24 KB each (some 6,500 tokens as
// the read tool numbers their lines): n of them fill the window n/6 times.
func bigWorkspace(t *testing.T, prefix string, n int) string {
	files := map[string]string{}
	for i := 1; i <= n; i++ {
		var b strings.Builder
		for l := 0; l < 300; l++ {
			fmt.Fprintf(&b, "\tfmt.Println(\"%s%d line %d: the quick brown fox jumps\") // filler\n", prefix, i, l)
		}
		files[fmt.Sprintf("%s%d.go", prefix, i)] = b.String()
	}
	return workspace(t, files)
}

// windowConfig is a config file giving the model its window.
func windowConfig(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(p, []byte(fmt.Sprintf(`{"context_window": %d, "retry":{"max_attempts":3,"base_delay_ms":20,"max_delay_ms":200}}`, compactWindow)), 0o644)
	return p
}

// readsRule is a sequence reading prefix1…prefixN, then saying done.
func readsRule(name, match, prefix string, n int, done string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  - name: %s\n    match: %s\n    sequence:\n", name, match)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "      - {tool_calls: [{name: read, input: {file_path: %s%d.go}}]}\n", prefix, i)
	}
	fmt.Fprintf(&b, "      - {text: %q}\n", done)
	return b.String()
}

const summaryRule = `  - {name: summary, match: {last_user_contains: "Write a summary of the conversation so far"}, respond: {text: "SUMMARY: the files read so far hold filler lines"}}
`

// checkCompactedRun: no request over the window or refused, every summary
// request without tools, and a context.compact of agent on stdout and in
// the store for each summary request of that agent.
func checkCompactedRun(t *testing.T, log []loopback.LogEntry, stdout, stored, agent string, system string) {
	t.Helper()
	if max := loopback.MaxInputTokens(log); max > compactWindow {
		t.Errorf("a request carried %d tokens, over the %d-token window", max, compactWindow)
	}
	summaries := 0
	for _, e := range log {
		if e.Status != 200 {
			t.Errorf("request %d (%s) was refused: %d %s", e.Seq, e.Rule, e.Status, e.Outcome)
		}
		if e.Rule == "summary" {
			if len(e.Tools) != 0 {
				t.Errorf("summary request %d offers tools %v", e.Seq, e.Tools)
			}
			if len(e.CacheBreakpoints) != 0 {
				t.Errorf("summary request %d carries %d cache breakpoints: no later request reads its prefix", e.Seq, len(e.CacheBreakpoints))
			}
			if strings.Contains(e.System, system) {
				summaries++
			}
		}
	}
	count := func(out string) (n int) {
		for _, e := range events(t, out) {
			if e.Type == event.ContextCompact && e.AgentID == agent {
				d := data[event.ContextCompactData](t, e)
				if d.After >= d.Before || d.Trigger != event.CompactAuto {
					t.Errorf("%s compaction %+v; want an automatic one that shrank the context", agent, d)
				}
				n++
			}
		}
		return n
	}
	t.Logf("%s: %d requests, %d summary requests, largest %d tokens", agent, len(log), summaries, loopback.MaxInputTokens(log))
	if summaries < 2 {
		t.Errorf("%s sent %d summary requests; want at least two over the run", agent, summaries)
	}
	if n := count(stdout); n != summaries {
		t.Errorf("stream-json has %d context.compact of %s for %d summary requests", n, agent, summaries)
	}
	if n := count(stored); n != summaries {
		t.Errorf("the store has %d context.compact of %s for %d summary requests", n, agent, summaries)
	}
}

func TestALeadReadingFilesSeveralTimesItsWindowCompactsFinishesAndContinuesFromTheCompactedHistory(t *testing.T) {
	const n = 18
	srv := server(t, `context_window: `+fmt.Sprint(compactWindow)+`
rules:
`+summaryRule+`  - {name: continued, match: {last_user_contains: "what did you read"}, respond: {text: "answered from the summary"}}
`+readsRule("lead", "{system_contains: \"You are Atomic\"}", "f", n, "lead done"))
	state, dir, cfg := t.TempDir(), bigWorkspace(t, "f", n), windowConfig(t)
	r := runIn(t, srv, state, dir, "--config", cfg, "-p", "read every file", "--output-format", "stream-json")
	if r.code != 0 || !strings.Contains(r.stdout, "lead done") {
		t.Fatalf("exit %d; stderr %s; want the lead to finish", r.code, r.stderr)
	}
	checkCompactedRun(t, srv.Log(), r.stdout, sessionsExport(t, state), event.LeadID, "You are Atomic")

	before := len(srv.Log())
	r = runIn(t, srv, state, dir, "--config", cfg, "--continue", "-p", "what did you read", "--output-format", "json")
	if r.code != 0 || !strings.Contains(r.stdout, "answered from the summary") {
		t.Fatalf("--continue: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	first := srv.Log()[before]
	if first.Rule != "continued" || len(first.Messages) == 0 || !strings.HasPrefix(first.Messages[0].Text, "[Context compacted]") ||
		!strings.Contains(first.Messages[0].Text, "SUMMARY: the files read so far") || first.InputTokens > compactWindow {
		t.Errorf("the continued run's first request (%s, %d tokens) opens with %.200v; want the compacted history", first.Rule, first.InputTokens, first.Messages)
	}
}

func TestASubAgentReadingFilesSeveralTimesItsWindowCompactsAndFinishes(t *testing.T) {
	const n = 18
	srv := server(t, `context_window: `+fmt.Sprint(compactWindow)+`
rules:
`+summaryRule+`  - {name: told, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "lead done"}}
`+readsRule("sub", "{system_contains: \"You are a sub-agent of Atomic\"}", "s", n, "sub done")+`  - {name: spawn, match: {system_contains: "You are Atomic"}, respond: {tool_calls: [{name: task, input: {description: "read all", prompt: "read every file", subagent_type: explore}}]}}
`)
	state, dir := t.TempDir(), bigWorkspace(t, "s", n)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	r := runCmd(t, withState(command(t, ctx, srv, "anthropic", dir, "--config", windowConfig(t), "-p", "have it read", "--output-format", "stream-json"), state))
	if r.code != 0 || !strings.Contains(r.stdout, "lead done") {
		t.Fatalf("exit %d; stderr %s; want the lead to finish after its sub-agent", r.code, r.stderr)
	}
	checkCompactedRun(t, srv.Log(), r.stdout, sessionsExport(t, state), "explore-1", "You are a sub-agent of Atomic")
}
