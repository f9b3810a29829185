package testkit

import (
	"context"
	"slices"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
)

// AskerFunc answers every prompt with f.
type AskerFunc func(context.Context, permission.Request) (permission.Answer, error)

// Ask implements permission.Asker.
func (f AskerFunc) Ask(ctx context.Context, r permission.Request) (permission.Answer, error) {
	return f(ctx, r)
}

// Gate is a default-mode permission gate that asks asker; nil is the
// headless policy (denies what needs a prompt, naming the flag).
func Gate(t testing.TB, asker permission.Asker) *permission.Gate {
	t.Helper()
	g, err := permission.NewGate(permission.Options{Mode: permission.Default, Asker: asker})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// AllowAll is a default-mode gate whose human allows every prompt once.
func AllowAll(t testing.TB) *permission.Gate {
	return Gate(t, AskerFunc(func(context.Context, permission.Request) (permission.Answer, error) {
		return permission.AllowOnce, nil
	}))
}

// CheckIdentity asserts SPEC §1's identity over a backend's events in
// session "s1" led by "lead": every event naming a sub-agent carries its
// own session (s1/<id>) and the lead as parent, each sub-agent id was
// reserved by one task tool.start, and the reducer's records are ids, in
// order, each tied to the call that reserved it.
func CheckIdentity(t testing.TB, events []event.Event, st *lifecycle.State, ids []string) {
	t.Helper()
	calls := map[string]string{}
	for _, e := range events {
		if e.Type == event.ToolStart {
			if d, _ := event.Payload[event.ToolStartData](e.Data); d.Name == "task" {
				if d.SubagentSessionID != "s1/"+d.SubagentID || e.AgentID != event.LeadID {
					t.Errorf("task tool.start reserves %q session %q from %q", d.SubagentID, d.SubagentSessionID, e.AgentID)
				}
				if prev, dup := calls[d.SubagentID]; dup {
					t.Errorf("%s reserved by two calls: %s and %s", d.SubagentID, prev, e.ToolCallID)
				}
				calls[d.SubagentID] = e.ToolCallID
			}
		}
		if e.AgentID == event.LeadID {
			if e.SessionID != "s1" || e.ParentAgentID != "" {
				t.Errorf("lead event %s has session %q parent %q", e.Type, e.SessionID, e.ParentAgentID)
			}
			continue
		}
		if e.SessionID != "s1/"+e.AgentID || e.ParentAgentID != event.LeadID {
			t.Errorf("%s of %q: session %q parent %q", e.Type, e.AgentID, e.SessionID, e.ParentAgentID)
		}
	}
	var got []string
	for _, rec := range st.Records() {
		got = append(got, rec.ID)
		if calls[rec.ID] != rec.ToolCallID {
			t.Errorf("%s: record's call %q, reserved by %q", rec.ID, rec.ToolCallID, calls[rec.ID])
		}
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("sub-agents = %v, want %v", got, ids)
	}
}
