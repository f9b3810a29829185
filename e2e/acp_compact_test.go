package e2e

import (
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/loopback"
)

func TestACPSessionAdvertisesCompactAndACompactPromptSummarisesTheLeadsEarlierTurns(t *testing.T) {
	for _, d := range acpDrivers {
		t.Run(d.name, func(t *testing.T) {
			srv := server(t, `
rules:
  - {name: summary, match: {last_user_contains: "Write a summary of the conversation so far"}, respond: {text: "the user greeted twice"}}
  - {name: chat, respond: {text: "hello"}}
`)
			r := d.run(t, srv, t.TempDir(), acpFlow{Cwd: t.TempDir(), Before: []string{"hi", "hi again"}, Prompt: "/compact keep the greetings"})
			if r.err != "" || r.stop != sdk.StopReasonEndTurn {
				t.Fatalf("/compact: stop %q, error %q; want end_turn", r.stop, r.err)
			}
			advertised := slices.ContainsFunc(r.updates, func(u seenUpdate) bool {
				a := u.n.Update.AvailableCommandsUpdate
				return a != nil && slices.ContainsFunc(a.AvailableCommands, func(c sdk.AvailableCommand) bool { return c.Name == "compact" })
			})
			if !advertised {
				t.Error("no available_commands_update advertised compact")
			}
			if got := agentText(r.updates); !strings.Contains(got, "Context compacted:") {
				t.Errorf("agent text %q; want the compaction's figures", got)
			}
			sum := loopback.ByRule(srv.Log(), "summary")
			if len(sum) != 1 || len(sum[0].Tools) != 0 {
				t.Fatalf("%d summary requests (tools %v); want one offering no tools", len(sum), sum)
			}
			last := sum[0].Messages[len(sum[0].Messages)-1].Text
			if !strings.Contains(last, "Instructions for this summary: keep the greetings") {
				t.Errorf("summary request ends %q; want the user's instructions", last)
			}
		})
	}
}
