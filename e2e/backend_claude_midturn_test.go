//go:build unix

package e2e

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// A background sub-agent that answers in 0.5 s while the lead keeps working
// in the same turn: the CLI hands the lead its answer inside that turn when
// the lead makes another request (appended to the next tool result), else in
// a turn of its own after the turn ends. Both end the same way for the lead.
const claudeBusyLeadRules = `
rules:
  - name: sub-delta
    match: {last_user_contains: "SUBTASK-DELTA"}
    respond: {delay_ms: 500, text: "done DELTA"}
  - name: lead-woken
    match: {any_user_contains: "done DELTA", tools_include: [Agent]}
    respond: {text: "The lead read done DELTA in a turn of its own."}
  - name: lead-told-in-turn
    match: {tool_result_contains: "done DELTA"}
    respond: {text: "The lead read done DELTA in the same turn."}
`

const claudeBusyLeadSpawn = `
  - name: lead-spawn
    match: {last_user_contains: "BUSYLEAD", tools_include: [Agent], has_tool_results: false}
    respond:
      tool_calls:
        - {name: Agent, input: {description: "Background delta", prompt: "SUBTASK-DELTA: report that you are finished. Use no tools.", subagent_type: general-purpose, run_in_background: true}}
  - name: other
    respond: {text: "OK."}
`

func TestBackendClaudeCodeBackgroundSubagentFinishingWhileTheLeadIsBusy(t *testing.T) {
	tests := []struct {
		name, rules string
		args        []string
	}{
		{
			name: "a slow tool in the same turn",
			rules: `
  - name: lead-unaware
    match: {last_user_contains: "BUSYLEAD", tool_result_contains: "slept"}
    respond: {text: "The lead never read done DELTA."}
  - name: lead-slow-tool
    match: {last_user_contains: "BUSYLEAD", has_tool_results: true}
    respond:
      tool_calls:
        - {name: Bash, input: {command: "sleep 3; echo slept", description: "Slow work"}}
`,
			args: []string{"--allowed-tools", "bash"},
		},
		{
			name: "a slow answer ending the turn",
			rules: `
  - name: lead-slow-answer
    match: {last_user_contains: "BUSYLEAD", has_tool_results: true}
    respond: {delay_ms: 3000, text: "A slow answer while the agent works."}
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := claudeBin(t)
			srv := server(t, claudeBusyLeadRules+tt.rules+claudeBusyLeadSpawn)
			args := append([]string{"-p", "BUSYLEAD: start a background sub-agent, then keep working.", "--output-format", "stream-json"}, tt.args...)
			r := runBackend(t, srv.URL(), bin, args...)
			if r.code != 0 {
				t.Fatalf("code %d: %s", r.code, r.stderr)
			}
			evs := events(t, r.stdout)
			checkCompleteOnceAndLast(t, evs)
			const id = "general-purpose-1"
			ends, completed, started := 0, 0, 0
			var statuses []lifecycle.Status
			var leadSaid []string
			for i, e := range evs {
				switch {
				case e.Type == event.SubagentStart:
					started++
				case e.Type == event.SubagentComplete && e.AgentID == id:
					ends++
				case e.Type == event.AgentStatus && e.AgentID == id:
					s := data[lifecycle.StatusData](t, e).Status
					statuses = append(statuses, s)
					if s == lifecycle.Completed {
						completed++
					} else if ends == 0 && s != lifecycle.Background {
						t.Errorf("event %d: %s is %s before its subagent.complete, want background", i, id, s)
					}
				case e.Type == event.MessageComplete && e.AgentID == "lead":
					leadSaid = append(leadSaid, data[event.MessageCompleteData](t, e).Text)
				}
			}
			if started != 1 {
				t.Errorf("%d sub-agents started, want the one Agent call (a slow Bash is no sub-agent)", started)
			}
			if ends != 1 || completed != 1 || len(statuses) == 0 || statuses[len(statuses)-1] != lifecycle.Completed {
				t.Errorf("%s: %d subagent.complete, statuses %v; want one, completed once and last", id, ends, statuses)
			}
			said := strings.Join(leadSaid, " | ")
			if !strings.Contains(said, "The lead read done DELTA") {
				t.Errorf("the lead said %q: the background agent's answer never reached it", said)
			}
			if d := data[event.CompleteData](t, evs[len(evs)-1]); !strings.Contains(d.Result, "The lead read done DELTA") {
				t.Errorf("complete result = %q, want the lead's answer after reading done DELTA", d.Result)
			}
		})
	}
}
