package spawn

import (
	"context"
	"testing"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/anthropic"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestAgentsThinkAtTheLeadsEffortUnlessTheirFileSaysEffort(t *testing.T) {
	w := newWorld(t,
		Type{Name: "plain"},
		Type{Name: "deep", Effort: provider.EffortMax},
		Type{Name: "cc", Backend: backend.ClaudeCode},
		Type{Name: "cc-deep", Backend: backend.ClaudeCode, Effort: provider.EffortHigh},
	)
	w.o.cfg.Effort = provider.EffortLow // the lead's --effort

	lead, err := w.o.OpenLead(nil, tools.NewSet(), Spec{SessionID: "s", AgentID: event.LeadID, Name: event.LeadID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lead.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]provider.Effort{"plain": provider.EffortLow, "deep": provider.EffortMax} {
		p, err := w.o.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.run(t, p, name+"-1").ThinkingBudget; got != anthropic.ThinkingBudget(want) {
			t.Errorf("%s thought with a budget of %d, want %s's %d", name, got, want, anthropic.ThinkingBudget(want))
		}
	}
	if got := w.srv.Log()[0].ThinkingBudget; got != anthropic.ThinkingBudget(provider.EffortLow) {
		t.Errorf("the lead thought with a budget of %d, want low's", got)
	}
	for name, want := range map[string]provider.Effort{"cc": provider.EffortLow, "cc-deep": provider.EffortHigh} {
		p, err := w.o.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := w.o.Open(p, Spec{AgentID: name + "-1", ParentID: event.LeadID})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.(*opened).cfg.Effort; got != want {
			t.Errorf("the %s CLI was given effort %q, want %q", name, got, want)
		}
	}
}
