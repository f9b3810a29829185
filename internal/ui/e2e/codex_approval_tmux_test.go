//go:build unix

package e2e

import (
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// The Codex lead's sub-agent approval, stopped before it is answered
// (codex_tmux_test.go has the approval answered).

func codexLead() permLead {
	return permLead{backend: "codex", bin: testkit.CodexCLI, perm: testkit.CodexPerm,
		who: "general-purpose-1 (codex)", finished: "1 general-purpose agent finished"}
}

func TestCodexCtrlCDuringASubagentsApprovalWithdrawsItAndInterruptsTheSubagent(t *testing.T) {
	checkPermInterrupted(t, codexLead())
}
