package codex

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// The child threads of the v1 capture.
var v1Threads = []string{"01a2044d-424c-7162-b4e3-d045d8691b68", "01a2044d-4265-70f3-b18d-a5814e2e3790",
	"01a2044d-4295-7583-a23c-fef9d40b41c7", "01a2044d-4dfd-7283-bfe5-205f896f2136", "01a2044d-5b16-7941-848a-c9975b6662c1"}

func TestReplayV1TheLeadsTranscriptNamesSubagentsByAtomicsIDsNotCodexThreads(t *testing.T) {
	r := replay(t, readCapture(t, "codex-subagents-appserver.jsonl"), allowAll(t))
	testkit.CheckNoForeignIDs(t, r.events, v1Threads)
	// The spawn's acknowledgement and the waits name the agents the tree
	// shows.
	var spawned, waited bool
	for _, e := range r.events {
		d, ok := event.Payload[event.ToolCompleteData](e.Data)
		if !ok || e.AgentID != "lead" {
			continue
		}
		spawned = spawned || strings.Contains(d.Result, "spawned general-purpose-1 ")
		waited = waited || (d.Name != "task" && strings.Contains(d.Result, "general-purpose-1"))
	}
	if !spawned || !waited {
		t.Errorf("the lead's spawn result names general-purpose-1: %v; a wait's result does: %v", spawned, waited)
	}
}

func TestReplayV1ARowKeepsItsCurrentToolAfterItsFirstToolNeverInitializingAgain(t *testing.T) {
	testkit.CheckNoInitializingAfterTool(t, replay(t, readCapture(t, "codex-subagents-appserver.jsonl"), allowAll(t)).events)
}
