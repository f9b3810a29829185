package ui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/event"
)

// runCommand types a slash command and runs what it left for later, as
// the program would.
func runCommand(m *Model, text string) {
	m.command(text)
	if later := m.later; later != nil {
		m.later = nil
		m.Update(later())
	}
}

func TestCompactAsksTheRunWithTheInstructionsAndNotesAFailure(t *testing.T) {
	m, b, _ := newTestModel(t, 100, 30)
	runCommand(m, "/compact keep the test names")
	if len(b.compacted) != 1 || b.compacted[0] != "keep the test names" {
		t.Fatalf("compactions asked %q; want one with the instructions", b.compacted)
	}
	if f := frame(m); !strings.Contains(f, "Compacting the conversation…") || strings.Contains(f, "Could not compact") {
		t.Errorf("frame:\n%s\nwant the compaction announced and no failure", f)
	}
	b.compactErr = errors.New("nothing to compact: the history has no earlier turn to summarise")
	runCommand(m, "/compact")
	if f := frame(m); !strings.Contains(f, "Could not compact: nothing to compact") {
		t.Errorf("frame:\n%s\nwant the failure noted", f)
	}
}

func TestAContextCompactShowsInTheSubAgentsTreeAndAsANoteForTheLead(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	feedEvents(m,
		taskStart(at(0), "c1", "explore", "Read everything", ""),
		subStart(at(0), "explore-1", "c1", "explore", "Read everything", false),
		ev(event.ContextCompact, at(2), "explore-1", "", event.ContextCompactData{Before: 33_000, After: 9_500, Trigger: event.CompactAuto, Summarised: 12}),
		ev(event.ContextCompact, at(3), event.LeadID, "", event.ContextCompactData{Before: 150_000, After: 12_000, Trigger: event.CompactTooLong}),
	)
	m.Update(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	f := frame(m)
	if !strings.Contains(f, "✻ context compacted · 33.0k → 9.5k tokens") {
		t.Errorf("frame:\n%s\nwant the sub-agent's compaction in its tree", f)
	}
	if !strings.Contains(f, "✻ Context compacted · 150.0k → 12.0k tokens (the request was too long)") {
		t.Errorf("frame:\n%s\nwant the lead's compaction noted", f)
	}
	if !strings.Contains(f, "ctx 12.0k") {
		t.Errorf("frame:\n%s\nwant the footer to show the lead's context after it", f)
	}
}

func TestContextListsEachAgentsUseOfItsWindowLeadFirst(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	runCommand(m, "/context")
	if f := frame(m); !strings.Contains(f, "No context measured yet") {
		t.Errorf("frame:\n%s\nwant a note that nothing is measured", f)
	}
	feedEvents(m,
		ev(event.UsageUpdate, at(1), "explore-1", "", event.UsageUpdateData{Usage: event.Usage{InputTokens: 30_000, OutputTokens: 10, ContextWindow: 40_000}, Delta: true, Context: 30_010}),
		ev(event.UsageUpdate, at(1), event.LeadID, "", event.UsageUpdateData{Usage: event.Usage{InputTokens: 10_000, OutputTokens: 5, ContextWindow: 200_000}, Delta: true, Context: 10_005}),
	)
	runCommand(m, "/context")
	f := frame(m)
	lead, sub := strings.Index(f, "lead             10.0k / 200.0k (5%)"), strings.Index(f, "explore-1        30.0k / 40.0k (75%)")
	if lead < 0 || sub < 0 || lead > sub {
		t.Errorf("frame:\n%s\nwant the lead's then explore-1's context of their windows", f)
	}
}

func TestAHookRunShowsAsADimLineForTheLeadAndInTheSubAgentsTree(t *testing.T) {
	m, _, _ := newTestModel(t, 140, 40)
	feedEvents(m,
		taskStart(at(0), "c1", "explore", "Read everything", ""),
		subStart(at(0), "explore-1", "c1", "explore", "Read everything", false),
		ev(event.HookRun, at(1), event.LeadID, "", event.HookRunData{Event: "PreToolUse", Tool: "Bash", Command: "./guard.sh",
			Outcome: event.HookBlocked, Message: "rm is not allowed\nat all", DurationMS: 12}),
		ev(event.HookRun, at(2), "explore-1", "", event.HookRunData{Event: "PostToolUse", Tool: "Read", Command: "log.sh", Outcome: event.HookOK, DurationMS: 3}),
	)
	m.Update(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	f := frame(m)
	if !strings.Contains(f, "⚓ hook PreToolUse Bash · ./guard.sh · blocked: rm is not allowed at all (12 ms)") {
		t.Errorf("frame:\n%s\nwant the lead's hook run noted", f)
	}
	if !strings.Contains(f, "⚓ hook PostToolUse Read · log.sh · ok (3 ms)") {
		t.Errorf("frame:\n%s\nwant the sub-agent's hook run in its tree", f)
	}
}
