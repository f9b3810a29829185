//go:build unix

package e2e

import "testing"

func TestPermissionsConfigResumeAddDirAndDoctorInTheRealChat(t *testing.T) {
	srv := startServer(t, "models: [test-model]\n"+scenario)
	tmp := t.TempDir()
	launch := func(args ...string) *screen {
		return launchIn(t, tmp, []string{"ANTHROPIC_API_KEY=test-key"}, append([]string{"--provider", "anthropic",
			"--base-url", shellQuote(srv.URL()), "--model", "test-model"}, args...)...)
	}
	s := launch()
	s.waitFor("Ask anything")
	s.typeLine("please fan out to three agents")
	s.waitFor("All three agents reported back.")
	s.keys("C-d")
	s.waitUntil("atomic to exit", func(string) bool { return s.exited() })
	s.kill()

	r := launch("--disallowed-tools", shellQuote("bash(rm:*)"))
	r.waitFor("Ask anything")
	r.typeLine("/permissions deny Bash(curl:*)")
	r.waitFor("Denied Bash(curl:*) for this session.")
	r.typeLine("/permissions")
	r.waitFor("Permissions · mode default", "deny  bash(rm:*) · --disallowed-tools", "deny  bash(curl:*) · /permissions deny (this session)")
	r.typeLine("/clear")
	r.typeLine("/config")
	r.waitFor("test-model · --model", "anthropic · --provider", "max depth              3 · default", "sandbox                workspace-write · default")
	r.typeLine("/clear")
	r.typeLine("/resume")
	r.waitFor("Sessions of this folder, newest first:", "please fan out to three agents")
	r.typeLine("/add-dir /nonexistent")
	r.waitFor("/add-dir /nonexistent: no such folder")
	r.typeLine("/clear")
	r.typeLine("/doctor")
	r.waitFor("Doctor:", "✓ provider reachable: anthropic listed its model test-model", "✓ API key", "✓ session store", "✓ git", "· codex CLI")
}
