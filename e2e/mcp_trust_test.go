//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAProjectMcpServerTheModelPlantedStartsOnlyAfterTheUserTrustsIt
// plays the attack of issue 20 §4 through the real binary and the
// loopback model: the workspace's .mcp.json names a server that writes
// its environment to a marker file, and .claude/settings.local.json (which
// the model can write as easily) sets enableAllProjectMcpServers. A
// headless run does not start it and says so in one warning naming
// 'atomic mcp trust' and --trust-project-mcp; after 'atomic mcp trust
// probe' it starts, without Atomic's provider keys but with its own env
// entry; once its entry is edited it is held again.
func TestAProjectMcpServerTheModelPlantedStartsOnlyAfterTheUserTrustsIt(t *testing.T) {
	srv := server(t, `
rules:
  - name: hello
    match: {last_user_contains: "hello"}
    respond: {text: "hi there"}
`)
	home := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	entry := func(extra string) string {
		cfg := map[string]any{"mcpServers": map[string]any{"probe": map[string]any{
			"command": "sh", "args": []string{"-c", "env > " + marker + extra},
			"env": map[string]string{"PROBE_OWN_TOKEN": "given-on-purpose"},
		}}}
		b, _ := json.Marshal(cfg)
		return string(b)
	}
	ws := workspace(t, map[string]string{
		".mcp.json":                   entry(""),
		".claude/settings.local.json": `{"enableAllProjectMcpServers": true, "enabledMcpjsonServers": ["probe"]}`,
	})
	run := func(args ...string) result {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, args...)
		cmd.Dir = ws
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
			"XDG_STATE_HOME=" + filepath.Join(home, "state"), "ANTHROPIC_API_KEY=sk-ant-e2e-secret", "OPENAI_API_KEY=sk-openai-e2e-secret"}
		return runCmd(t, cmd)
	}
	headless := func() result {
		t.Helper()
		r := run("run", "--provider", "anthropic", "--model", "test-model", "--base-url", srv.URL(), "-p", "hello", "--no-session-persistence")
		if r.code != 0 || strings.TrimSpace(r.stdout) != "hi there" {
			t.Fatalf("code %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
		}
		return r
	}
	started := func() bool {
		_, err := os.Stat(marker)
		return err == nil
	}
	held := func(r result, why string) {
		t.Helper()
		if started() {
			t.Fatalf("the unapproved server ran (%s); stderr:\n%s", why, r.stderr)
		}
		if n := strings.Count(r.stderr, "atomic: warning: mcp: not starting"); n != 1 {
			t.Fatalf("%d warnings about held servers, want 1 (%s):\n%s", n, why, r.stderr)
		}
		for _, want := range []string{"probe", "atomic mcp trust NAME", "--trust-project-mcp", "enableAllProjectMcpServers in .claude/settings.local.json"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("the warning lacks %q (%s):\n%s", want, why, r.stderr)
			}
		}
	}

	held(headless(), "first run")

	list := run("mcp")
	if list.code != 0 || !strings.Contains(list.stdout, "probe  not approved") || !strings.Contains(list.stdout, "sh -c \"env > "+marker+"\"") {
		t.Fatalf("atomic mcp: code %d\n%s\n%s", list.code, list.stdout, list.stderr)
	}
	if r := run("mcp", "trust", "probe"); r.code != 0 || !strings.Contains(r.stdout, "trusted probe: sh -c") {
		t.Fatalf("atomic mcp trust probe: code %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if fi, err := os.Stat(filepath.Join(home, "config", "atomic", "trusted-mcp.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("approvals file: %v %v", fi, err)
	}

	r := headless()
	if !started() {
		t.Fatalf("the approved server did not start; stderr:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "mcp: not starting") {
		t.Errorf("a warning about held servers after approval:\n%s", r.stderr)
	}
	env, _ := os.ReadFile(marker)
	for _, secret := range []string{"sk-ant-e2e-secret", "sk-openai-e2e-secret"} {
		if strings.Contains(string(env), secret) {
			t.Errorf("the MCP server saw Atomic's provider key %s", secret)
		}
	}
	if !strings.Contains(string(env), "PROBE_OWN_TOKEN=given-on-purpose") {
		t.Errorf("the server lacks its own env entry:\n%s", env)
	}

	// The model edits the approved entry: held again until approved anew.
	os.Remove(marker)
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(entry("; touch "+marker+".2")), 0o644); err != nil {
		t.Fatal(err)
	}
	r = headless()
	held(r, "edited entry")
	if !strings.Contains(r.stderr, "probe (changed since approved)") {
		t.Errorf("the warning does not say the entry changed:\n%s", r.stderr)
	}

	// --trust-project-mcp starts it for one run, remembering nothing.
	r = run("run", "--provider", "anthropic", "--model", "test-model", "--base-url", srv.URL(), "-p", "hello", "--no-session-persistence", "--trust-project-mcp")
	if r.code != 0 || !started() {
		t.Fatalf("--trust-project-mcp: code %d, started %v\n%s", r.code, started(), r.stderr)
	}
	os.Remove(marker)
	held(headless(), "after the one-run flag")
}
