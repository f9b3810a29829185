//go:build unix

package e2e

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// nestScenario: the lead starts one sync sub-agent (NEST-CHILD), which,
// when it is given b's spawn tool, starts a sub-agent of its own
// (NEST-GRAND); each runs one shell command before it answers. A child
// given no spawn tool just runs its command (rule child-alone).
func (b conformBackend) nestScenario() string {
	sub := ""
	if b.subMatch != "" {
		sub = ", " + b.subMatch
	}
	bash := func(cmd string) string { return strings.ReplaceAll(b.bash, "COMMAND", cmd) }
	sc := "rules:\n" +
		"  - name: grand-first\n    match: {last_user_contains: NEST-GRAND, has_tool_results: false}\n    respond:\n      text: Checking.\n      tool_calls:\n        - " + bash("echo grand") + "\n" +
		"  - name: grand-after\n    match: {any_user_contains: NEST-GRAND, has_tool_results: true}\n    respond: {text: done GRAND}\n" +
		"  - name: child-after\n    match: {any_user_contains: NEST-CHILD, has_tool_results: true}\n    respond: {text: done CHILD}\n" +
		"  - name: child-spawn\n    match: {any_user_contains: NEST-CHILD, has_tool_results: false, tools_include: [" + b.spawnTool + ", " + b.bashTool + "]}\n    respond:\n      text: Handing on.\n      tool_calls:\n        - " +
		bash("echo child") + "\n        - " + strings.ReplaceAll(b.spawn, "PROMPT", "NEST-GRAND: run the command, then report.") + "\n" +
		"  - name: child-alone\n    match: {any_user_contains: NEST-CHILD, has_tool_results: false" + sub + "}\n    respond:\n      text: Checking.\n      tool_calls:\n        - " + bash("echo child") + "\n" +
		"  - name: lead-final\n    match: {tool_results_contain_all: [done CHILD]}\n    respond: {text: All done.}\n"
	if b.wait != "" {
		sc += "  - " + b.wait + "\n"
	}
	return sc +
		"  - name: lead-spawn\n    match: {last_user_contains: CONFORM-NEST, has_tool_results: false}\n    respond:\n      text: Handing the work on.\n      tool_calls:\n        - " +
		strings.ReplaceAll(b.spawn, "PROMPT", "NEST-CHILD: hand the grand part to a sub-agent of your own if you can, then report.") + "\n" +
		"  - name: other\n    respond: {text: OK.}\n"
}

// nestedRun is one run of the nested scenario on a backend.
type nestedRun struct {
	evs []event.Event
	log []loopback.LogEntry
}

func runNested(t *testing.T, b conformBackend, scenario string) nestedRun {
	t.Helper()
	srv := server(t, scenario)
	r, raw := b.run(t, srv.URL(), "-p", "CONFORM-NEST: hand the work to a sub-agent.", "--output-format", "stream-json",
		"--permission-mode", "bypassPermissions")
	var rules []string
	for _, e := range srv.Log() {
		rules = append(rules, e.Rule)
	}
	if r.code != 0 || len(raw) == 0 || raw[len(raw)-1].Type != event.Complete {
		t.Fatalf("exit %d, stderr %q, rules %q: want a finished run", r.code, r.stderr, rules)
	}
	out := nestedRun{log: srv.Log()}
	for _, e := range raw {
		out.evs = append(out.evs, e.Event())
	}
	return out
}

// answered is the first request rule answered, and whether there is one.
func (n nestedRun) answered(rule string) (loopback.LogEntry, bool) {
	for _, e := range n.log {
		if e.Rule == rule {
			return e, true
		}
	}
	return loopback.LogEntry{}, false
}

// subagentIDs are the ids tool.start reserved, in order.
func (n nestedRun) subagentIDs() []string {
	var ids []string
	for _, e := range n.evs {
		if d, ok := event.Payload[event.ToolStartData](e.Data); ok && e.Type == event.ToolStart && d.SubagentID != "" {
			ids = append(ids, d.SubagentID)
		}
	}
	return ids
}

func TestConformanceASubagentsOwnSubagentHasOneIDAndItsSpawnerAsParentFromTheFirstEventOn(t *testing.T) {
	eachBackend(t, func(t *testing.T, b conformBackend) {
		n := runNested(t, b, b.nestScenario())
		child, nested := n.answered("child-spawn")
		alone, _ := n.answered("child-alone")
		if b.noNest != "" {
			// The skip holds only while the CLI still gives its
			// sub-agents no spawn tool.
			if nested || slices.Contains(alone.Tools, b.spawnTool) {
				t.Fatalf("%s's sub-agent was given %s (tools %v %v; messages %+v): it can nest now; drop noNest",
					b.name, b.spawnTool, alone.Tools, child.Tools, child.Messages)
			}
			t.Skip(b.noNest)
		}
		if !nested {
			t.Fatalf("the sub-agent never started its own (its tools: %v)", alone.Tools)
		}
		ids := n.subagentIDs()
		if len(ids) != 2 {
			t.Fatalf("sub-agents reserved: %v, want the child and its own", ids)
		}
		testkit.CheckParents(t, n.evs, map[string]string{ids[0]: "lead", ids[1]: ids[0]})
	})
}

func TestConformanceAfterItsFirstToolARowShowsTheCurrentOrLastToolNeverInitializing(t *testing.T) {
	eachBackend(t, func(t *testing.T, b conformBackend) {
		testkit.CheckNoInitializingAfterTool(t, runNested(t, b, b.nestScenario()).evs)
	})
}

// uuid is the shape of the CLIs' own ids (Codex threads, Copilot agents).
var uuid = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func TestConformanceTheLeadsTranscriptNamesSubagentsByAtomicsIDs(t *testing.T) {
	eachBackend(t, func(t *testing.T, b conformBackend) {
		// Copilot tells the lead a background sub-agent's id (Codex's
		// sub-agents always are): the child runs in the background there.
		sc := strings.Replace(b.nestScenario(), `mode: sync, prompt: "NEST-CHILD`, `mode: background, prompt: "NEST-CHILD`, 1)
		n := runNested(t, b, sc)
		for i, e := range n.evs {
			if e.AgentID != "lead" {
				continue
			}
			b, _ := json.Marshal(e.Data)
			if id := uuid.FindString(string(b)); id != "" {
				t.Errorf("event %d (%s of the lead) shows the CLI's id %s: %.300s", i, e.Type, id, b)
			}
		}
	})
}
