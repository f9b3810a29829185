//go:build unix

package e2e

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
)

// fanOutBudget is what the S2 fan-out (the lead starts three sub-agents
// in one message, each answers, the lead answers) may send to the model
// in all: every byte of every request body, system prompt, tool
// definitions and history included.
const fanOutBudget = 70 * 1024

// TestFanOutSendsAtMost70KBToTheModel runs S2 through the binary and sums
// the request bodies the loopback server logged. The count is
// deterministic (the sub-agents answer at once: the delay changes no
// byte), so this is a budget on a count, not a timing. It logs each
// request so the figures can be read again with -v.
func TestFanOutSendsAtMost70KBToTheModel(t *testing.T) {
	srv := server(t, strings.ReplaceAll(nativeFanOut, "delay_ms: 2000", "delay_ms: 0"))
	r := atomic(t, srv, "anthropic", t.TempDir(), "-p", "FANOUT: start three sub-agents in parallel.")
	if r.code != 0 || !strings.Contains(r.stdout, "All three are done.") {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	log := srv.Log()
	for _, e := range log {
		t.Logf("request %d (%s): %d bytes, system %d bytes, %d tools %v", e.Seq, e.Rule, e.Bytes, len(e.System), len(e.Tools), e.Tools)
	}
	if len(log) != 5 {
		t.Fatalf("%d requests, want 5 (lead, three sub-agents, lead)", len(log))
	}
	total := loopback.TotalBytes(log)
	t.Logf("S2 fan-out: %d bytes (%.1f KB) sent to the model in %d requests", total, float64(total)/1024, len(log))
	if total > fanOutBudget {
		t.Errorf("S2 fan-out sent %d bytes to the model, budget %d", total, fanOutBudget)
	}
}
