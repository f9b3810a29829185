package e2e

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// The TUI with the lead in the real GitHub Copilot CLI (--backend
// copilot): a sub-agent's shell command, whose permission request the
// SDK hands to Atomic, is answered in Atomic's prompt queue.

func TestCopilotSubagentsCommandIsApprovedInAtomicsPromptAndRuns(t *testing.T) {
	srv := startServer(t, testkit.CopilotPerm)
	mark := testMark(t)
	s := startBackendTUI(t, "copilot", testkit.CopilotCLI(t), srv.URL(), mark)
	out := answerPermApproval(t, s, srv, "general-purpose-1 (copilot)", "y", "1 general-purpose agent finished", "The sub-agent is done.")
	if !out.ran {
		t.Error("perm.txt is absent after the approval, want the command run in the workspace")
	}
	if strings.Contains(out.result, "declined") {
		t.Errorf("the sub-agent's model read %q, want the command's output", out.result)
	}
	quitAndCheckNoCodexLeft(t, s, mark)
}

func TestCopilotSubagentsCommandDeniedInAtomicsPromptNeverRunsAndTheRunFinishes(t *testing.T) {
	srv := startServer(t, testkit.CopilotPerm)
	mark := testMark(t)
	s := startBackendTUI(t, "copilot", testkit.CopilotCLI(t), srv.URL(), mark)
	out := answerPermApproval(t, s, srv, "general-purpose-1 (copilot)", "n", "1 general-purpose agent finished", "The sub-agent is done.")
	if out.ran {
		t.Error("perm.txt exists after the denial, want the command never run")
	}
	if want := `the user declined bash "touch perm.txt"`; !strings.Contains(out.result, want) {
		t.Errorf("the sub-agent's model read %q, want the denial (%s)", out.result, want)
	}
	quitAndCheckNoCodexLeft(t, s, mark)
}

func TestCopilotCtrlCDuringASubagentsApprovalWithdrawsItAndInterruptsTheSubagent(t *testing.T) {
	srv := startServer(t, testkit.CopilotPerm)
	mark := testMark(t)
	s := startBackendTUI(t, "copilot", testkit.CopilotCLI(t), srv.URL(), mark)
	interruptPermApproval(t, s, "general-purpose-1 (copilot)")
	quitAndCheckNoCodexLeft(t, s, mark)
}
