package mcp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/atomic-agent/atomic/internal/mcp"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestParseReadsEveryShapeClaudeCodeDocuments(t *testing.T) {
	vars := env(map[string]string{"HOME": "/home/u", "TOKEN": "s3cret"})
	tests := []struct {
		name string
		json string
		want mcp.Server
	}{
		{"stdio without type", `{"mcpServers":{"fs":{"command":"npx","args":["-y","server-filesystem","${HOME}/src"],"env":{"K":"${TOKEN}"}}}}`,
			mcp.Server{Name: "fs", Type: mcp.Stdio, Command: "npx", Args: []string{"-y", "server-filesystem", "/home/u/src"}, Env: map[string]string{"K": "s3cret"}}},
		{"stdio with type", `{"mcpServers":{"fs":{"type":"stdio","command":"srv"}}}`,
			mcp.Server{Name: "fs", Type: mcp.Stdio, Command: "srv"}},
		{"http", `{"mcpServers":{"gh":{"type":"http","url":"https://api.example.com/mcp","headers":{"Authorization":"Bearer ${TOKEN}"}}}}`,
			mcp.Server{Name: "gh", Type: mcp.HTTP, URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}}},
		{"streamable-http alias", `{"mcpServers":{"gh":{"type":"streamable-http","url":"https://x/mcp"}}}`,
			mcp.Server{Name: "gh", Type: mcp.HTTP, URL: "https://x/mcp"}},
		{"sse", `{"mcpServers":{"old":{"type":"sse","url":"${BASE:-http://localhost:9}/sse"}}}`,
			mcp.Server{Name: "old", Type: mcp.SSE, URL: "http://localhost:9/sse"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := mcp.Parse(".mcp.json", []byte(tt.json), vars)
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			tt.want.Source = ".mcp.json"
			if diff := cmp.Diff([]mcp.Server{tt.want}, got, cmpopts.IgnoreFields(mcp.Server{}, "Entry")); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseReportsABadServerAsPathWhyAndKeepsTheOthers(t *testing.T) {
	tests := []struct {
		name, entry, want string
	}{
		{"unknown type", `{"type":"websocket","url":"ws://x"}`, `.mcp.json: mcpServers.bad: unknown type "websocket"`},
		{"missing command", `{"args":["x"]}`, `.mcp.json: mcpServers.bad: missing "command"`},
		{"missing url", `{"type":"http"}`, `.mcp.json: mcpServers.bad: missing "url"`},
		{"url without type", `{"url":"http://x"}`, `.mcp.json: mcpServers.bad: "url" given without "type"`},
		{"unset variable", `{"command":"srv","env":{"K":"${NOPE}"}}`, `.mcp.json: mcpServers.bad: env.K: environment variable NOPE is not set`},
		{"args not a list", `{"command":"srv","args":"x"}`, `.mcp.json: mcpServers.bad: bad server entry: line 1 column`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := `{"mcpServers":{"bad":` + tt.entry + `,"good":{"command":"ok"}}}`
			got, errs := mcp.Parse(".mcp.json", []byte(data), env(nil))
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tt.want) {
				t.Fatalf("errors = %v, want one containing %q", errs, tt.want)
			}
			if len(got) != 1 || got[0].Name != "good" {
				t.Errorf("servers = %+v, want only good", got)
			}
		})
	}
}

func TestParseReportsMalformedJSONWithItsLine(t *testing.T) {
	_, errs := mcp.Parse("/w/.mcp.json", []byte("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}"), env(nil))
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "/w/.mcp.json: line 3 ") {
		t.Fatalf("errors = %v, want one starting /w/.mcp.json: line 3", errs)
	}
	_, errs = mcp.Parse("/w/.mcp.json", []byte(`{"servers":{}}`), env(nil))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `/w/.mcp.json: no "mcpServers" object`) {
		t.Fatalf("errors = %v, want a missing mcpServers error", errs)
	}
}

func TestLoadMergesSourcesLaterWinsByName(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	project := filepath.Join(dir, ".mcp.json")
	write(t, user, `{"mcpServers":{"a":{"command":"user-a"},"b":{"command":"user-b"}}}`)
	write(t, project, `{"mcpServers":{"b":{"command":"project-b"}}}`)
	got, errs := mcp.Load([]mcp.Source{
		{Path: user, Optional: true},
		{Path: filepath.Join(dir, "absent.json"), Optional: true},
		{Path: project, Optional: true},
		{Path: `{"mcpServers":{"c":{"type":"http","url":"http://x"}}}`},
	}, env(nil))
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	var cmds []string
	for _, s := range got {
		cmds = append(cmds, s.Name+"="+s.Command+s.URL)
	}
	if diff := cmp.Diff([]string{"a=user-a", "b=project-b", "c=http://x"}, cmds); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
}

func TestLoadReportsAMissingRequiredFile(t *testing.T) {
	_, errs := mcp.Load([]mcp.Source{{Path: "/nonexistent/mcp.json"}}, env(nil))
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "/nonexistent/mcp.json: ") {
		t.Fatalf("errors = %v, want one naming the file", errs)
	}
}

func TestToolNameIsSanitisedAndCappedAt64(t *testing.T) {
	tests := []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my server", "get.thing/v2", "mcp__my_server__get_thing_v2"},
		{"s", strings.Repeat("x", 80), "mcp__s__" + strings.Repeat("x", 56)},
	}
	for _, tt := range tests {
		if got := mcp.ToolName(tt.server, tt.tool); got != tt.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
	}
}

func write(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadReadsClaudeMcpAddServersOfTheUserAndThisProjectFromClaudeJSON(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, ".claude.json")
	project := filepath.Join(dir, ".mcp.json")
	write(t, claude, `{"numStartups": 40, "theme": "dark",
		"mcpServers": {"memory": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}, "shared": {"command": "user-shared"}},
		"projects": {
			"/work/repo": {"allowedTools": [], "mcpServers": {"shared": {"command": "local-shared"}, "db": {"type": "http", "url": "http://localhost:9/mcp"}}},
			"/work/other": {"mcpServers": {"other": {"command": "not-this-one"}}}
		}}`)
	write(t, project, `{"mcpServers":{"shared":{"command":"project-shared"},"lint":{"command":"project-lint"}}}`)
	got, errs := mcp.Load([]mcp.Source{
		{Path: claude, Optional: true, ClaudeJSON: true},
		{Path: project, Optional: true, Project: true},
		{Path: claude, Optional: true, ClaudeJSON: true, ClaudeProject: "/work/repo"},
	}, env(nil))
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	var servers []string
	for _, s := range got {
		servers = append(servers, fmt.Sprintf("%s=%s%s project=%v from %s", s.Name, s.Command, s.URL, s.Project, strings.TrimPrefix(s.Source, dir+string(filepath.Separator))))
	}
	want := []string{
		"memory=npx project=false from .claude.json",
		"shared=local-shared project=false from .claude.json (projects./work/repo)",
		"lint=project-lint project=true from .mcp.json",
		"db=http://localhost:9/mcp project=false from .claude.json (projects./work/repo)",
	}
	if diff := cmp.Diff(want, servers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	none := filepath.Join(dir, "none.json")
	write(t, none, `{"projects": {}}`)
	if got, errs := mcp.Load([]mcp.Source{{Path: none, Optional: true, ClaudeJSON: true}, {Path: none, Optional: true, ClaudeJSON: true, ClaudeProject: "/x"}}, env(nil)); len(got)+len(errs) != 0 {
		t.Errorf("a ~/.claude.json with no servers gave %v, %v", got, errs)
	}
	bad := filepath.Join(dir, "bad.json")
	write(t, bad, `{"mcpServers": `)
	if _, errs := mcp.Load([]mcp.Source{{Path: bad, Optional: true, ClaudeJSON: true}}, env(nil)); len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), bad+": ") {
		t.Errorf("errors %v, want one naming the malformed file", errs)
	}
}
