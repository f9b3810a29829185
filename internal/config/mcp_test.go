package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMCPSettingsLoadAndAreChecked(t *testing.T) {
	cases := []struct {
		name, content string
		files         []string
		timeout       time.Duration
		err           string
	}{
		{"files and seconds", `{"mcp_config": ["a.json", "b.json"], "mcp_startup_timeout": 2.5}`, []string{"a.json", "b.json"}, 2500 * time.Millisecond, ""},
		{"timeout left out is the default", `{}`, nil, 0, ""},
		{"zero timeout", `{"mcp_startup_timeout": 0}`, nil, 0, "mcp_startup_timeout: must be more than 0 seconds, got 0"},
		{"duration string is not seconds", `{"mcp_startup_timeout": "5s"}`, nil, 0, "mcp_startup_timeout: expected a number, found a string"},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, string(rune('a'+i))+".json")
			if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := LoadFile(p, false)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(f.MCPConfig, ",") != strings.Join(c.files, ",") || f.MCPStartupTimeout() != c.timeout {
				t.Errorf("mcp_config %v timeout %v, want %v %v", f.MCPConfig, f.MCPStartupTimeout(), c.files, c.timeout)
			}
		})
	}
}
