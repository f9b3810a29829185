package opencode

import (
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

func TestReplayARowKeepsItsCurrentToolAfterItsFirstToolNeverInitializingAgain(t *testing.T) {
	// CAP-PERM: the sub-agent runs one bash command, then answers.
	r := replay(t, readCapture(t, "opencode-subagents-serve.event.sse"), leads(t, "opencode-subagents-serve.http.txt")["CAP-PERM"], allowAll(t))
	testkit.CheckNoInitializingAfterTool(t, r.events)
}
