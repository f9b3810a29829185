//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// codexV2Bin is a wrapper that runs the Codex CLI with multi_agent_v2 on
// (`--enable multi_agent_v2`, the flag's form of `[features]
// multi_agent_v2 = true`), given to atomic as --backend-bin.
func codexV2Bin(t *testing.T) string {
	t.Helper()
	real := codexBin(t)
	wrapper := filepath.Join(t.TempDir(), "codex-v2")
	script := "#!/bin/sh\nexec '" + real + "' \"$@\" --enable multi_agent_v2\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper
}

func TestBackendCodexV2RunsThreeParallelSubagentsAndCompletesOnceAfterAll(t *testing.T) {
	evs := checkCodexFanOut(t, codexV2Bin(t), testkit.CodexFanOutV2)
	// v2 names each sub-agent by its task (agent path /root/alpha…); v1
	// would describe it by its prompt.
	var names []string
	for _, e := range evs {
		if e.Type == event.SubagentStart {
			names = append(names, data[event.SubagentStartData](t, e).Description)
		}
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "alpha,beta,gamma" {
		t.Errorf("sub-agents %q, want the v2 tasks alpha, beta and gamma", names)
	}
}
