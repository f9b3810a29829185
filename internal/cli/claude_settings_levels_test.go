package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/ui"
)

// Run from a subfolder, /permissions names the root's file for its rule
// and /config names every settings file read and the one the mode came
// from.
func TestConfigAndPermissionsNameTheRootsSettingsFileWhenRunFromASubfolder(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, repo, map[string]string{
		".git/HEAD":                       "ref: refs/heads/main\n",
		".claude/settings.json":           `{"permissions": {"deny": ["Bash(rm:*)"], "defaultMode": "plan"}}`,
		"app/.claude/settings.local.json": `{"permissions": {"ask": ["Bash(git push:*)"]}}`,
		"app/web/index.html":              "<p>hi</p>\n",
	})
	dir := filepath.Join(repo, "app", "web")
	root, app := filepath.Join(repo, ".claude", "settings.json"), filepath.Join(repo, "app", ".claude", "settings.local.json")
	srv := testkit.Loopback(t, answerHi)
	sess := chatSession(t, dir, chatEnv(t, home), "--provider", "anthropic", "--base-url", srv.URL(), "--model", "m")
	got := map[string]ui.Setting{}
	for _, r := range sess.Settings() {
		got[r.Name] = r
	}
	if r := got["Claude Code settings"]; r.Value != app+", "+root {
		t.Errorf("/config Claude Code settings = %+v; want %s, %s", r, app, root)
	}
	if r := got["permission mode"]; r.Value != "plan" || r.From != root+" (defaultMode)" {
		t.Errorf("/config permission mode = %+v; want plan from %s", r, root)
	}
	_, rules := sess.Permissions()
	var lines []string
	for _, r := range rules {
		lines = append(lines, string(r.Kind)+" "+r.Rule+" · "+r.Source)
	}
	for _, want := range []string{"deny Bash(rm:*) · " + root, "ask Bash(git push:*) · " + app} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("/permissions lacks %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
}
