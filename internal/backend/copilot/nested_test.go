package copilot

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// readNested reads the nested capture: one session's sends and events.
func readNested(t *testing.T) []step {
	t.Helper()
	var out []step
	scan(t, "copilot-subagents-nested.jsonl", func(line []byte) {
		var rec struct {
			Dir string `json:"dir"`
			Msg struct {
				Method string `json:"method"`
				Params struct {
					Event json.RawMessage `json:"event"`
				} `json:"params"`
			} `json:"msg"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		switch {
		case rec.Dir == ">>" && rec.Msg.Method == "session.send":
			out = append(out, step{send: true})
		case rec.Dir == "<<" && rec.Msg.Method == "session.event":
			out = append(out, step{ev: decode(t, rec.Msg.Params.Event)})
		}
	})
	return out
}

// The CLI's agentIds of the capture's three sub-agents.
var nestedCopilotIDs = []string{"90f0c367-e168-4a03-8631-eee1387e1f3f", "f3fc598c-c700-460c-aeab-c9c44ff61ae7", "19093138-d60e-4a15-b5b9-91ea7d03dc6d"}

func TestReplayNestedASubagentsOwnSubagentHasOneIDAndItsSpawnerAsParentFromItsTaskCallOn(t *testing.T) {
	r := replay(t, readNested(t), nil)
	testkit.CheckParents(t, r.events, map[string]string{
		"general-purpose-1": "lead",              // NEST-CHILD
		"general-purpose-2": "lead",              // NEST-BG
		"general-purpose-3": "general-purpose-1", // NEST-GRAND, the child's own
	})
	rec, _ := r.state.Get("general-purpose-3")
	if rec.Prompt != "NEST-GRAND: report done." || rec.Description != "Grand part" {
		t.Errorf("the grandchild's record: prompt %q, description %q; want its task call's", rec.Prompt, rec.Description)
	}
}

func TestReplayNestedARowKeepsItsCurrentToolAfterItsFirstToolNeverInitializingAgain(t *testing.T) {
	testkit.CheckNoInitializingAfterTool(t, replay(t, readNested(t), nil).events)
}

func TestReplayNestedTheLeadsTranscriptNamesSubagentsByAtomicsIDsNotCopilots(t *testing.T) {
	r := replay(t, readNested(t), nil)
	testkit.CheckNoForeignIDs(t, r.events, nestedCopilotIDs)
	found := false
	for _, e := range r.events {
		if b, _ := json.Marshal(e.Data); e.AgentID == "lead" && strings.Contains(string(b), "agent_id: general-purpose-2") {
			found = true
		}
	}
	if !found {
		t.Errorf("no lead event tells the background sub-agent's id as general-purpose-2")
	}
}
