package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/atomic-agent/atomic/internal/claudesettings"
)

// The run reads each Claude Code settings file once: the MCP trust takes
// its keys from what claudesettings.Load read. Shown by removing the
// project's file after Load: the trust still has its disabled server and
// the user's approval, as it would only by reading the files again
// before.
func TestTheMCPTrustUsesTheClaudeSettingsTheRunLoadedWithoutReadingThemAgain(t *testing.T) {
	base := t.TempDir()
	home, ws := filepath.Join(base, "home"), filepath.Join(base, "ws")
	project := filepath.Join(ws, ".claude", "settings.json")
	user := filepath.Join(home, ".claude", "settings.json")
	for path, text := range map[string]string{
		project: `{"disabledMcpjsonServers": ["noisy"]}`,
		user:    `{"enabledMcpjsonServers": ["db"]}`,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := claudesettings.Load(claudesettings.Places{Dir: ws, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{project, user} {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
	ios := IOStreams{Dir: ws, Getenv: func(k string) string {
		return map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(base, "config")}[k]
	}}
	c := &common{}
	trust, errs := c.mcpTrust(ios, cs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if !slices.Equal(trust.Claude.Disabled, []string{"noisy"}) || !slices.Equal(trust.Claude.Enabled, []string{"db"}) {
		t.Fatalf("trust from the loaded settings: disabled %v, enabled %v; want [noisy] and [db]", trust.Claude.Disabled, trust.Claude.Enabled)
	}
	// Without loaded settings (atomic mcp) the files are read: gone now.
	trust, _ = c.mcpTrust(ios, nil)
	if len(trust.Claude.Disabled)+len(trust.Claude.Enabled) != 0 {
		t.Fatalf("trust read from disk after the files were removed: %+v; want none", trust.Claude)
	}
}
