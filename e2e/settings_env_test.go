package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Settings env is applied to Atomic's children under the same filter as
// the shell's own variables: a provider key set there never reaches a
// command, the user's other variables do.
func TestAProviderKeySetInClaudeCodeSettingsEnvNeverReachesACommand(t *testing.T) {
	srv := server(t, settingsScenario([]settingsCall{
		{"bash", map[string]any{"command": "echo \"o=$OPENAI_API_KEY t=$MY_TOOL_TOKEN\"", "description": "env"}},
	}))
	ws := workspace(t, map[string]string{"main.go": "package main\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", ws, "-p", "env", "--permission-mode", "bypassPermissions")
	for _, kv := range cmd.Env {
		if h, ok := strings.CutPrefix(kv, "HOME="); ok {
			os.MkdirAll(filepath.Join(h, ".claude"), 0o755)
			os.WriteFile(filepath.Join(h, ".claude", "settings.json"), []byte(`{"env": {"OPENAI_API_KEY": "sk-settings-leak", "MY_TOOL_TOKEN": "tool-token"}}`), 0o644)
		}
	}
	r := runCmd(t, cmd)
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	res := srv.Log()[1].LastToolResults()
	if len(res) != 1 || !strings.Contains(res[0].Content, "o= t=tool-token") {
		t.Fatalf("bash result %+v: want the tool token and no provider key", res)
	}
	if strings.Contains(r.stdout+r.stderr, "sk-settings-leak") {
		t.Errorf("the key was printed: %q %q", r.stdout, r.stderr)
	}
}
