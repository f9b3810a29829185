package team_test

import (
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/runtime"
)

func TestTeammateSystemPromptCarriesTheProjectMemory(t *testing.T) {
	const memory = "# Project memory\n\nContents of /repo/CLAUDE.md (project instructions):\n\nNever push to main."
	rules := reportingMate("ann", 0)
	rules = append(rules, leadRules(calls(call("team_create", map[string]any{"name": "t"}), spawnCall("ann")), []string{"ann"}, "Done.")...)
	h := start(t, rules, 0, func(c *runtime.Config) { c.Memory = memory })
	h.rt.Submit("Build it.")
	if out := h.complete(10 * time.Second); out.Err != nil {
		t.Fatalf("outcome = %+v", out)
	}
	mate := 0
	for _, e := range h.srv.Log() {
		if strings.Contains(e.System, mateSystem("ann")) {
			mate++
			if !strings.HasSuffix(e.System, memory) {
				t.Errorf("teammate request (%s): system prompt does not end with the memory:\n%s", e.Rule, e.System)
			}
		}
	}
	if mate == 0 {
		t.Fatalf("no teammate request in the log:\n%s", h.dumpLog())
	}
}
