package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// settingsCall is one tool call the model makes in a settings test.
type settingsCall struct {
	tool  string
	input map[string]any
}

// settingsScenario has the model make calls at once, then answer.
func settingsScenario(calls []settingsCall) string {
	var lines []string
	for _, c := range calls {
		in, _ := json.Marshal(c.input)
		lines = append(lines, fmt.Sprintf("        - {name: %s, input: %s}", c.tool, in))
	}
	return `
rules:
  - name: calls
    match: {has_tool_results: false}
    respond:
      text: "Looking."
      tool_calls:
` + strings.Join(lines, "\n") + `
  - name: answer
    match: {has_tool_results: true}
    respond: {text: "Done."}
`
}

func TestAClaudeCodeReadDenyKeepsDotEnvFromTheModelInBypassPermissions(t *testing.T) {
	const secret = "hunter2-e2e-7f3a"
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			srv := server(t, settingsScenario([]settingsCall{
				{"read", map[string]any{"file_path": ".env"}},
				{"grep", map[string]any{"pattern": "SECRET", "path": ".", "output_mode": "content"}},
				{"grep", map[string]any{"pattern": "SECRET", "path": ".env", "output_mode": "content"}},
				{"glob", map[string]any{"pattern": "**/*.env*"}},
				{"read", map[string]any{"file_path": "main.go"}},
			}))
			ws := workspace(t, map[string]string{
				".claude/settings.json": `{"permissions": {"deny": ["Read(./.env)"]}}`,
				".env":                  "SECRET=" + secret + "\n",
				"main.go":               "package main // SECRET handling lives in config\n",
			})
			r := atomic(t, srv, prov, ws, "-p", "read the secrets", "--permission-mode", "bypassPermissions")
			if r.code != 0 {
				t.Fatalf("code %d: %s", r.code, r.stderr)
			}
			log := srv.Log()
			if len(log) != 2 {
				t.Fatalf("%d model requests, want 2", len(log))
			}
			raw, err := json.Marshal(log)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), secret) {
				t.Fatalf("the content of .env reached the model despite Read(./.env) deny")
			}
			res := log[1].LastToolResults()
			if len(res) != 5 {
				t.Fatalf("%d tool results, want 5", len(res))
			}
			source := filepath.Join(ws, ".claude", "settings.json")
			for _, i := range []int{0, 2} {
				// OpenAI's tool messages carry no error flag: the text says it.
				if !strings.Contains(res[i].Content, "permission denied") || !strings.Contains(res[i].Content, `"Read(./.env)"`) || !strings.Contains(res[i].Content, source) {
					t.Errorf("call %d: result %q: want a denial naming the rule and %s", i, res[i].Content, source)
				}
			}
			if res[1].IsError || !strings.Contains(res[1].Content, "main.go") {
				t.Errorf("workspace-wide grep: error %v, %q: want main.go found and .env skipped", res[1].IsError, res[1].Content)
			}
			if !strings.HasPrefix(res[3].Content, "No files found") {
				t.Errorf("glob listed a file a Read deny covers: %q", res[3].Content)
			}
			if res[4].IsError || !strings.Contains(res[4].Content, "SECRET handling") {
				t.Errorf("read of main.go: %v %q", res[4].IsError, res[4].Content)
			}
		})
	}
}

func TestAClaudeCodeAskRuleDeniesHeadlessAndAMalformedSettingsFileStopsTheRun(t *testing.T) {
	srv := server(t, settingsScenario([]settingsCall{
		{"bash", map[string]any{"command": "echo pushed > pushed.txt", "description": "push"}},
		{"write", map[string]any{"file_path": ".claude/settings.local.json", "content": `{"permissions":{"allow":["Bash"]}}`}},
	}))
	ws := workspace(t, map[string]string{
		".claude/settings.json": `{"permissions": {"ask": ["Bash(echo:*)"]}, "statusLine": {}, "enabledMcpjsonServers": []}`,
	})
	r := atomic(t, srv, "anthropic", ws, "-p", "push", "--permission-mode", "bypassPermissions")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	res := srv.Log()[1].LastToolResults()
	if len(res) != 2 {
		t.Fatalf("%d tool results, want 2", len(res))
	}
	if !res[0].IsError || !strings.Contains(res[0].Content, `ask rule "Bash(echo:*)"`) {
		t.Errorf("bash under an ask rule, headless: %q", res[0].Content)
	}
	if _, err := os.Stat(filepath.Join(ws, "pushed.txt")); err == nil {
		t.Error("the command under the ask rule ran")
	}
	if !res[1].IsError || !strings.Contains(res[1].Content, "Claude Code settings file") {
		t.Errorf("write of .claude/settings.local.json in bypassPermissions: %q", res[1].Content)
	}
	if _, err := os.Stat(filepath.Join(ws, ".claude", "settings.local.json")); err == nil {
		t.Error("the model wrote .claude/settings.local.json")
	}
	if !strings.Contains(r.stderr, `Atomic does not support "statusLine"`) || strings.Contains(r.stderr, "enabledMcpjsonServers") {
		t.Errorf("stderr %q: want one warning naming statusLine and none naming the MCP key", r.stderr)
	}

	if err := os.WriteFile(filepath.Join(ws, ".claude", "settings.local.json"), []byte("{\n  \"permissions\": {\"deny\": [\"Read(./.env)\",]}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := len(srv.Log())
	bad := runCmd(t, command(t, ctx, srv, "anthropic", ws, "-p", "hi", "--permission-mode", "bypassPermissions"))
	if bad.code == 0 || !strings.Contains(bad.stderr, filepath.Join(ws, ".claude", "settings.local.json")) || !strings.Contains(bad.stderr, "line 2, column") {
		t.Errorf("malformed settings: code %d, stderr %q; want a failure naming the file, line and column", bad.code, bad.stderr)
	}
	if len(srv.Log()) != before {
		t.Error("the run with a malformed settings file asked the model")
	}
}

// The project's env reaches commands only once the user trusts the
// project's settings (--trust-project-settings); the user's own file
// always applies.
func TestClaudeCodeSettingsEnvReachesCommandsAndTheUserFileCanSetTheMode(t *testing.T) {
	for _, tc := range []struct {
		name, want, notice string
		args               []string
	}{
		{"trusted", "proj=from-project user=from-user", "env PROJ_VAR (commands only)", []string{"--trust-project-settings"}},
		{"untrusted", "proj= user=from-user", "not applied (its deny and ask rules are): give --trust-project-settings", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := server(t, settingsScenario([]settingsCall{
				{"bash", map[string]any{"command": "echo \"proj=$PROJ_VAR user=$USER_VAR\"", "description": "env"}},
			}))
			ws := workspace(t, map[string]string{
				".claude/settings.json": `{"env": {"PROJ_VAR": "from-project"}}`,
			})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			// No --permission-mode: the user's file sets bypassPermissions, or
			// the bash call would be denied headless.
			cmd := command(t, ctx, srv, "anthropic", ws, append([]string{"-p", "env"}, tc.args...)...)
			for _, kv := range cmd.Env {
				if h, ok := strings.CutPrefix(kv, "HOME="); ok {
					os.MkdirAll(filepath.Join(h, ".claude"), 0o755)
					os.WriteFile(filepath.Join(h, ".claude", "settings.json"), []byte(`{"permissions": {"defaultMode": "bypassPermissions"}, "env": {"USER_VAR": "from-user"}}`), 0o644)
				}
			}
			r := runCmd(t, cmd)
			if r.code != 0 {
				t.Fatalf("code %d: %s", r.code, r.stderr)
			}
			res := srv.Log()[1].LastToolResults()
			if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Content, tc.want) {
				t.Fatalf("bash result %+v: want %q", res, tc.want)
			}
			if !strings.Contains(r.stderr, tc.notice) || strings.Contains(r.stderr, "from-project") {
				t.Errorf("stderr %q: want the notice %q naming PROJ_VAR without its value", r.stderr, tc.notice)
			}
		})
	}
}

func TestAClaudeCodeReadDenyOfAFolderOutsideTheWorkspaceAlsoKeepsItFromBashThroughTheSandbox(t *testing.T) {
	home := func(h string) {
		os.MkdirAll(filepath.Join(h, ".claude"), 0o755)
		os.WriteFile(filepath.Join(h, ".claude", "settings.json"), []byte(`{"permissions": {"deny": ["Read(~/private/**)"]}}`), 0o644)
		os.MkdirAll(filepath.Join(h, "private"), 0o700)
		os.WriteFile(filepath.Join(h, "private", "key"), []byte("PRIVATE\n"), 0o600)
		os.MkdirAll(filepath.Join(h, "public"), 0o755)
		os.WriteFile(filepath.Join(h, "public", "note"), []byte("hello\n"), 0o644)
	}
	runSandboxed(t, []sandboxCheck{
		{name: "read the denied folder", command: "cat ~/private/key", line: "atomic: the sandbox (workspace-write) blocked this: commands may not read the secret store"},
		{name: "read beside it", command: "cat ~/public/note", ok: true},
	}, home)
}
