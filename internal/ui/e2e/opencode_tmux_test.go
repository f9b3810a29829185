//go:build unix

package e2e

import (
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// The TUI with the lead in the real OpenCode CLI (--backend opencode): a
// sub-agent's command that OpenCode asks to approve is answered in
// Atomic's prompt queue (backend_tmux_test.go has the checks).

func opencodeLead() permLead {
	return permLead{backend: "opencode", bin: testkit.OpenCodeCLI, perm: testkit.OpenCodePerm,
		who: "general-1 (opencode)", finished: "1 general agent finished"}
}

func TestOpenCodeSubagentsCommandIsApprovedInAtomicsPromptAndRuns(t *testing.T) {
	checkPermAnswered(t, opencodeLead(), "y")
}

func TestOpenCodeSubagentsCommandDeniedInAtomicsPromptNeverRunsAndTheRunFinishes(t *testing.T) {
	checkPermAnswered(t, opencodeLead(), "n")
}

func TestOpenCodeCtrlCDuringASubagentsApprovalWithdrawsItAndInterruptsTheSubagent(t *testing.T) {
	checkPermInterrupted(t, opencodeLead())
}
