package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/config"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// runInProject runs atomic run with args in a project of files whose home is the
// project's home/ folder, against the loopback; it returns the model of
// the one request and stderr.
func runInProject(t *testing.T, files map[string]string, args ...string) (model, stderr string) {
	t.Helper()
	srv := testkit.Loopback(t, "rules:\n  - {name: answer, respond: {text: ok}}\n")
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, files)
	var out, errOut bytes.Buffer
	env := map[string]string{"HOME": filepath.Join(dir, "home"), "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_STATE_HOME": filepath.Join(dir, "state"),
		"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL()}
	code := Run(context.Background(), append([]string{"run", "--no-session-persistence"}, args...), IOStreams{
		In: strings.NewReader(""), Out: &out, Err: &errOut, Getenv: func(k string) string { return env[k] }, Dir: dir,
	})
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	log := srv.Log()
	if len(log) != 1 {
		t.Fatalf("%d requests, want 1", len(log))
	}
	return log[0].Model, errOut.String()
}

func TestClaudeCodeSettingsModelIsUsedWhenNothingElseNamesOne(t *testing.T) {
	user := "home/.claude/settings.json"
	if m, _ := runInProject(t, map[string]string{user: `{"model": "claude-from-settings"}`}, "-p", "hi"); m != "claude-from-settings" {
		t.Errorf("model %q, want the settings' model", m)
	}
	if m, _ := runInProject(t, map[string]string{user: `{"model": "claude-from-settings"}`}, "--model", "flag-model", "-p", "hi"); m != "flag-model" {
		t.Errorf("model %q, want --model's", m)
	}
	m, stderr := runInProject(t, map[string]string{user: `{"model": "opus"}`}, "-p", "hi")
	if m != config.DefaultAnthropicModel || !strings.Contains(stderr, "model opus is an alias of Claude Code's") {
		t.Errorf("model %q, stderr %q: an alias keeps the default and says so", m, stderr)
	}
}

func TestACommandFilesModelAnswersItsPrompt(t *testing.T) {
	m, _ := runInProject(t, map[string]string{".claude/commands/quick.md": "---\nmodel: claude-quick-model\n---\nBe quick about $ARGUMENTS."},
		"--model", "test-model", "-p", "/quick this")
	if m != "claude-quick-model" {
		t.Errorf("model %q, want the command file's", m)
	}
}
