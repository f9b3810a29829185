//go:build unix

package e2e

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden frames of the terminal tests")

// deepScenario: the lead starts A in the background; A starts a
// background shell (a line, then a long sleep) and a sync B; B a sync C,
// which takes 60 s: a depth-3 tree with a shell row, all running.
const deepScenario = `
rules:
  - {name: c, match: {first_user_contains: C-WORK}, respond: {text: "C done", delay_ms: 60000}}
  - name: b
    match: {first_user_contains: B-WORK, has_tool_results: false}
    respond: {tool_calls: [{name: task, input: {description: "Read the tokens", prompt: "C-WORK"}}]}
  - name: a
    match: {first_user_contains: A-WORK, has_tool_results: false}
    respond:
      tool_calls:
        - {name: bash, input: {command: "echo compiling auth; sleep 60", run_in_background: true}}
        - {name: task, input: {description: "Check Login", prompt: "B-WORK"}}
  - {name: lead-waits, match: {first_user_contains: "audit it", has_tool_results: true}, respond: {text: "A is on it."}}
  - name: lead
    match: {first_user_contains: "audit it"}
    respond: {tool_calls: [{name: task, input: {description: "Audit the handlers", prompt: "A-WORK", mode: background}}]}
`

// elapsedTimes matches the times a frame shows (12s, 1m 3s, 250ms) and
// contextSizes an agent's context (2.3k ctx: its system prompt names the
// temporary workspace).
var (
	elapsedTimes = regexp.MustCompile(`\b\d+(m \d+)?(ms|s)\b`)
	contextSizes = regexp.MustCompile(`\b[\d.]+k? ctx\b`)
)

// treeFrame is the agents tree of a screen, elapsed times and context
// sizes masked: the lines from its header to the input's rule.
func treeFrame(t *testing.T, scr string) string {
	t.Helper()
	lines := strings.Split(scr, "\n")
	from, to := -1, len(lines)
	for i, l := range lines {
		if from < 0 && strings.Contains(l, " agents") && strings.HasPrefix(strings.TrimSpace(l), "●") {
			from = i
		}
		if from >= 0 && strings.HasPrefix(l, "───") {
			to = i
			break
		}
	}
	if from < 0 {
		t.Fatalf("no agents tree on the screen:\n%s", scr)
	}
	out := make([]string, 0, to-from)
	for _, l := range lines[from:to] {
		out = append(out, strings.TrimRight(contextSizes.ReplaceAllString(elapsedTimes.ReplaceAllString(l, "Ns"), "N ctx"), " "))
	}
	return strings.Join(out, "\n") + "\n"
}

// golden compares got with testdata/name (rewritten under -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("the frame differs from %s:\n--- got\n%s--- want\n%s", path, got, want)
	}
}

func TestADepth3TreeWithAShellRowRendersInTheTerminalCompactAndExpanded(t *testing.T) {
	srv := startServer(t, deepScenario)
	s := launch(t, []string{"ANTHROPIC_API_KEY=test-key"}, "--provider", "anthropic", "--base-url", shellQuote(srv.URL()),
		"--model", "test-model", "--max-depth", "3", "--permission-mode", "bypassPermissions")
	s.waitFor("Ask anything")
	s.typeLine("audit it")
	// Compact: the lead's own agent, counting what its subtree hides.
	scr := s.waitFor("Audit the handlers", "+2 agents, 1 shell", "A is on it.")
	golden(t, "depth3_shell_compact.golden", treeFrame(t, scr))
	s.keys("C-o")
	// Expanded: every row is there: A, its shell with its line, B, and C reading.
	scr = s.waitUntil("the expanded tree", func(scr string) bool {
		return showsAll(scr, []string{"ctrl+o to collapse", "$ echo compiling auth; sleep 60", "╰ compiling auth", "Check Login", "Read the tokens", "Prompt: C-WORK"})
	})
	golden(t, "depth3_shell_expanded.golden", treeFrame(t, scr))
}
