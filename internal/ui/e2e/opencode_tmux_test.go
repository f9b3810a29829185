package e2e

import (
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// The TUI with the lead in the real OpenCode CLI (--backend opencode): a
// sub-agent's command that OpenCode asks to approve is answered in
// Atomic's prompt queue, allowed or denied.

func TestOpenCodeSubagentsCommandIsApprovedInAtomicsPromptAndRuns(t *testing.T) {
	srv := startServer(t, testkit.OpenCodePerm)
	mark := testMark(t)
	s := startBackendTUI(t, "opencode", testkit.OpenCodeCLI(t), srv.URL(), mark)
	out := answerPermApproval(t, s, srv, "general-1 (opencode)", "y", "1 general agent finished", "The sub-agent is done.")
	if !out.ran {
		t.Error("perm.txt is absent after the approval, want the command run in the workspace")
	}
	if strings.Contains(out.result, "declined") {
		t.Errorf("the sub-agent's model read %q, want the command's output", out.result)
	}
	quitAndCheckNoCodexLeft(t, s, mark)
}

func TestOpenCodeSubagentsCommandDeniedInAtomicsPromptNeverRunsAndTheRunFinishes(t *testing.T) {
	srv := startServer(t, testkit.OpenCodePerm)
	mark := testMark(t)
	s := startBackendTUI(t, "opencode", testkit.OpenCodeCLI(t), srv.URL(), mark)
	out := answerPermApproval(t, s, srv, "general-1 (opencode)", "n", "1 general agent finished", "The sub-agent is done.")
	if out.ran {
		t.Error("perm.txt exists after the denial, want the command never run")
	}
	if want := `the user declined bash "touch perm.txt"`; !strings.Contains(out.result, want) {
		t.Errorf("the sub-agent's model read %q, want the denial (%s)", out.result, want)
	}
	quitAndCheckNoCodexLeft(t, s, mark)
}

func TestOpenCodeCtrlCDuringASubagentsApprovalWithdrawsItAndInterruptsTheSubagent(t *testing.T) {
	srv := startServer(t, testkit.OpenCodePerm)
	mark := testMark(t)
	s := startBackendTUI(t, "opencode", testkit.OpenCodeCLI(t), srv.URL(), mark)
	interruptPermApproval(t, s, "general-1 (opencode)")
	quitAndCheckNoCodexLeft(t, s, mark)
}
