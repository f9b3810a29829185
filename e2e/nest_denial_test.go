//go:build unix

package e2e

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
)

// nestedDenialScenario: the lead runs A, A runs B (both in the
// foreground), and B makes call, which the run refuses; B reports the
// refusal it was given, A passes it on, the lead answers with it.
func nestedDenialScenario(call string) string {
	return `
rules:
  - {name: b-told, match: {first_user_contains: B-WORK, has_tool_results: true}, respond: {text: "B was refused"}}
  - {name: b, match: {first_user_contains: B-WORK}, respond: {tool_calls: [` + call + `]}}
  - {name: a-told, match: {first_user_contains: A-WORK, has_tool_results: true}, respond: {text: "A heard B"}}
  - {name: a, match: {first_user_contains: A-WORK}, respond: {tool_calls: [{name: task, input: {description: "ask B", prompt: "B-WORK"}}]}}
  - {name: lead-told, match: {first_user_contains: DENY-GO, has_tool_results: true}, respond: {text: "done"}}
  - {name: lead, match: {first_user_contains: DENY-GO}, respond: {tool_calls: [{name: task, input: {description: "ask A", prompt: "A-WORK"}}]}}
`
}

func TestARefusalOfANestedAgentsCallNamesItsPathFromTheLead(t *testing.T) {
	for _, c := range []struct {
		name, call string
		args       []string
	}{
		{"headless", `{name: bash, input: {command: "touch deployed"}}`, nil},
		{"plan mode", `{name: write, input: {file_path: "deployed", content: "x"}}`, []string{"--permission-mode", "plan"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := server(t, nestedDenialScenario(c.call))
			r := atomic(t, srv, "anthropic", t.TempDir(), append([]string{"-p", "DENY-GO", "--max-depth", "3"}, c.args...)...)
			if r.code != 0 {
				t.Fatalf("code %d: %s", r.code, r.stderr)
			}
			told := loopback.ByRule(srv.Log(), "b-told")
			if len(told) != 1 || len(told[0].LastToolResults()) != 1 {
				t.Fatalf("B was told %d times:\n%s", len(told), r.stderr)
			}
			got := told[0].LastToolResults()[0].Content
			want := "(requested by lead › general-purpose-1 › general-purpose-2)"
			if !strings.Contains(got, "permission denied") || !strings.Contains(got, want) {
				t.Fatalf("B's refusal %q does not name its path %q", got, want)
			}
		})
	}
}
