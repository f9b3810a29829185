package bus_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// How far a drawn sub-agent got.
const (
	unseen      = iota // registered, its subagent.start not yet out
	running            // started
	interrupted        // an interrupt marked it, its session has not ended
	ended              // its subagent.complete came
)

func sub(typ event.Type, id string, data any) event.Event {
	return event.Event{Type: typ, Time: time.Unix(0, 0), AgentID: id, ParentAgentID: event.LeadID, SessionID: "s/" + id, Data: data}
}

// The completion gate (Registry.Unsettled over lifecycle.State.Holds)
// lists exactly the registered agents not yet done, in registration order:
// sub-agents started, interrupted with their session still open, or not yet
// announced; teammates spawning, working or idle. Agents nobody registered
// never hold it, and ended ones never do.
func TestTheCompletionGateWaitsForEveryRegisteredAgentNotYetDone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		reg := bus.NewOwners()
		var st lifecycle.State
		var want []string
		nSubs := rapid.IntRange(0, 6).Draw(t, "subagents")
		stages := make([]int, nSubs)
		var interrupt bool
		for i := range nSubs {
			stages[i] = rapid.IntRange(unseen, ended).Draw(t, "stage")
			interrupt = interrupt || stages[i] == interrupted
		}
		for i, stage := range stages {
			id := fmt.Sprintf("agent-%d", i)
			registered := rapid.Bool().Draw(t, "registered") || stage == unseen
			if registered {
				reg.Register(id, bus.Owner{Kind: bus.OwnerSubagents, Cancel: func() error { return nil }})
				if stage != ended {
					want = append(want, id)
				}
			}
			if stage >= running {
				st.Apply(sub(event.SubagentStart, id, event.SubagentStartData{AgentType: "explore", Background: rapid.Bool().Draw(t, "bg")}))
			}
			if stage == ended {
				st.Apply(sub(event.SubagentComplete, id, event.SubagentCompleteData{Success: true, Result: "r"}))
			}
		}
		if interrupt {
			// Marks every started one interrupted; the ended ones stay ended.
			st.Apply(event.Event{Type: event.Interrupt, AgentID: event.LeadID, Data: event.InterruptData{Reason: "Esc"}})
		}
		for i := range rapid.IntRange(0, 4).Draw(t, "teammates") {
			name := fmt.Sprintf("mate%d", i)
			id := "team/" + name
			path := []lifecycle.TeammateStatus{lifecycle.MateSpawning, lifecycle.MateWorking, lifecycle.MateIdle}
			last := rapid.SampledFrom([]lifecycle.TeammateStatus{lifecycle.MateSpawning, lifecycle.MateWorking,
				lifecycle.MateIdle, lifecycle.MateError, lifecycle.MateShutdown, lifecycle.MateInterrupted}).Draw(t, "status")
			if i := slices.Index(path, last); i >= 0 {
				path = path[:i+1]
			} else {
				path = append(path, last)
			}
			registered := rapid.Bool().Draw(t, "registered")
			if registered {
				reg.Register(id, bus.Owner{Kind: bus.OwnerTeam, Cancel: func() error { return nil }})
				if last.Active() {
					want = append(want, id)
				}
			}
			for _, s := range path {
				st.Apply(event.Event{Type: event.TeammateStatus, AgentID: id, ParentAgentID: event.LeadID,
					Data: event.TeammateStatusData{Name: name, Status: string(s)}})
			}
		}
		// Registration order is the gate's order: sub-agents first here.
		got := reg.Unsettled(st.Holds)
		if !slices.Equal(got, want) {
			t.Fatalf("gate holds %v, want %v (stages %v)", got, want, stages)
		}
	})
}

func TestAnUnknownAgentIsRefusedNamingTheKnownOnes(t *testing.T) {
	reg := bus.NewOwners()
	if err := reg.Cancel("x-1"); err == nil || err.Error() != `unknown agent "x-1": no agent has been started` {
		t.Fatalf("Cancel on an empty registry = %v", err)
	}
	reg.Register("explore-1", bus.Owner{Kind: bus.OwnerSubagents, Cancel: func() error { return nil }})
	reg.Register("team/ana", bus.Owner{Kind: bus.OwnerTeam, Cancel: func() error { return nil }})
	if err := reg.Cancel("x-1"); err == nil || err.Error() != `unknown agent "x-1"; known agents: explore-1, team/ana` {
		t.Fatalf("Cancel of an unknown id = %v", err)
	}
}

func TestACancelGoesToTheOwnerRegisteredLastAndNamesItWhenItFails(t *testing.T) {
	reg := bus.NewOwners()
	var calls []string
	reg.Register("team/ana", bus.Owner{Kind: bus.OwnerTeam, Cancel: func() error { calls = append(calls, "first"); return nil }})
	// A new incarnation of ana, run by an external CLI teammate's session.
	reg.Register("team/ana", bus.Owner{Kind: bus.OwnerCLI, By: "lead", Cancel: func() error {
		calls = append(calls, "second")
		return fmt.Errorf("busy")
	}})
	err := reg.Cancel("team/ana")
	if err == nil || err.Error() != "cancel team/ana (run by the external CLI session of lead): busy" {
		t.Fatalf("Cancel = %v", err)
	}
	if !slices.Equal(calls, []string{"second"}) || !slices.Equal(reg.IDs(), []string{"team/ana"}) {
		t.Fatalf("calls %v, ids %v", calls, reg.IDs())
	}
}
