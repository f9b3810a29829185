package cli

import (
	"github.com/atomic-agent/atomic/internal/config"
	"path/filepath"
	"testing"
)

func TestClaudeJSONServersNeedApprovalOnlyWhereTheModelCanWriteThatFile(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct {
		dir  string
		held bool
	}{{filepath.Join(home, "repo"), false}, {home, true}} {
		env := map[string]string{"HOME": home}
		var c common
		var claude int
		for _, s := range c.mcpSources(IOStreams{Dir: tc.dir, Getenv: func(k string) string { return env[k] }}, config.File{}) {
			if !s.ClaudeJSON {
				continue
			}
			claude++
			if s.Path != filepath.Join(home, ".claude.json") || s.Project != tc.held {
				t.Errorf("run in %s: source %+v, want ~/.claude.json with Project %v", tc.dir, s, tc.held)
			}
		}
		if claude != 2 {
			t.Errorf("run in %s: %d ~/.claude.json sources, want its user and local scopes", tc.dir, claude)
		}
	}
}
