//go:build unix

package e2e

import (
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// The TUI with the lead in the real GitHub Copilot CLI (--backend
// copilot): a sub-agent's shell command, whose permission request the SDK
// hands to Atomic, is answered in Atomic's prompt queue
// (backend_tmux_test.go has the checks).

func copilotLead() permLead {
	return permLead{backend: "copilot", bin: testkit.CopilotCLI, perm: testkit.CopilotPerm,
		who: "general-purpose-1 (copilot)", finished: "1 general-purpose agent finished"}
}

func TestCopilotSubagentsCommandIsApprovedInAtomicsPromptAndRuns(t *testing.T) {
	checkPermAnswered(t, copilotLead(), "y")
}

func TestCopilotSubagentsCommandDeniedInAtomicsPromptNeverRunsAndTheRunFinishes(t *testing.T) {
	checkPermAnswered(t, copilotLead(), "n")
}

func TestCopilotCtrlCDuringASubagentsApprovalWithdrawsItAndInterruptsTheSubagent(t *testing.T) {
	checkPermInterrupted(t, copilotLead())
}
