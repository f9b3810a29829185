package runtime

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/subagent"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Budgets of the tool definitions, in bytes on the wire: every byte is
// sent on every request of every agent.
const (
	leadToolsBudget     = 7680 // a default run's lead, first request
	subagentToolsBudget = 6400 // a general-purpose sub-agent
	oneToolBudget       = 1100
	leadPromptBudget    = 512 // without the workspace path and memory
	subPromptBudget     = 384
)

// wireBytes is what a tool definition costs in a request: its name,
// description and compact schema as JSON.
func wireBytes(t *testing.T, s provider.ToolSpec) int {
	t.Helper()
	var schema bytes.Buffer
	if err := json.Compact(&schema, s.InputSchema); err != nil {
		t.Fatalf("%s: schema: %v", s.Name, err)
	}
	b, err := json.Marshal(map[string]any{"name": s.Name, "description": s.Description, "input_schema": json.RawMessage(schema.Bytes())})
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// measure logs each tool's size and returns the set's total.
func measure(t *testing.T, who string, set *tools.Set) int {
	t.Helper()
	total := 0
	for _, s := range set.Specs() {
		n := wireBytes(t, s)
		total += n
		t.Logf("%-10s %-22s %5d bytes (description %4d)", who, s.Name, n, len(s.Description))
		if n > oneToolBudget {
			t.Errorf("%s: the %s definition takes %d bytes, budget %d", who, s.Name, n, oneToolBudget)
		}
	}
	t.Logf("%-10s %d tools, %d bytes", who, set.Len(), total)
	return total
}

// TestToolDefinitionsAndPromptsStayWithinTheirBudgets measures what every
// request pays before any conversation: the tool definitions of the lead
// and of a sub-agent, and their system prompts. With -v it prints each
// tool's size, to measure them again.
func TestToolDefinitionsAndPromptsStayWithinTheirBudgets(t *testing.T) {
	ws := tools.Workspace{Root: "/w"}
	h := start(t, `rules: [{respond: {text: hi}}]`, Config{Workspace: ws})
	if n := measure(t, "lead", h.rt.leadTools); n > leadToolsBudget {
		t.Errorf("the lead's tools take %d bytes, budget %d", n, leadToolsBudget)
	}
	if n := measure(t, "sub-agent", CoreTools(ws)); n > subagentToolsBudget {
		t.Errorf("a sub-agent's tools take %d bytes, budget %d", n, subagentToolsBudget)
	}

	// Everything the lead can be offered: teams on, a background task and
	// a worktree under way.
	all := start(t, `rules: [{respond: {text: hi}}]`, Config{Workspace: ws, Teams: true})
	m := all.rt.Manager()
	for _, tool := range []tools.Tool{subagent.NewCheckTask(m), subagent.NewWaitForTask(m), subagent.NewListTasks(m), subagent.NewMergeWorktree(m)} {
		all.rt.leadTools.Add(tool)
	}
	measure(t, "lead, all", all.rt.leadTools)

	lead, teams, sub := LeadSystemPrompt(ws, false, ""), LeadSystemPrompt(ws, true, ""), SubagentSystemPrompt(ws, "")
	t.Logf("system prompts: lead %d bytes (%d with teams), sub-agent %d bytes", len(lead), len(teams), len(sub))
	if len(lead) > leadPromptBudget || len(sub) > subPromptBudget {
		t.Errorf("system prompts take %d (lead) and %d (sub-agent) bytes, budgets %d and %d", len(lead), len(sub), leadPromptBudget, subPromptBudget)
	}
}
