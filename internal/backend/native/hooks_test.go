package native

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

func hookRunner(t *testing.T, dir, hooksJSON string) *hooks.Runner {
	t.Helper()
	cfg, warnings, err := hooks.Parse(json.RawMessage(hooksJSON), "settings.json")
	if err != nil || len(warnings) > 0 {
		t.Fatalf("parse: %v %v", err, warnings)
	}
	return hooks.New(hooks.Options{Config: cfg, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}})
}

func TestAHooksAllowSkipsThePromptButNeverADenyRule(t *testing.T) {
	dir := t.TempDir()
	p, srv := testkit.Model(t, `
rules:
  - name: answer
    match: {has_tool_results: true}
    respond: {text: "done"}
  - name: calls
    respond:
      tool_calls:
        - {name: bash, input: {command: "rm -f kept.txt"}}
        - {name: bash, input: {command: "echo allowed > ran.txt"}}
`)
	if err := os.WriteFile(filepath.Join(dir, "kept.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	deny, err := permission.ParseClaudeRule(permission.RuleDeny, "Bash(rm:*)", "settings.json", permission.RuleDirs{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	// Headless: what would be asked is denied, unless a hook allows it.
	gate, err := permission.NewGate(permission.Options{Mode: permission.Default, Root: dir, Settings: []permission.ClaudeRule{deny}})
	if err != nil {
		t.Fatal(err)
	}
	allow := `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\"}}'"}]}]}`
	rec := &recorder{}
	s := New(Config{ID: "lead", Provider: p, Gate: gate, Sink: rec, Tools: tools.NewSet(tools.NewBash(tools.Workspace{Root: dir})),
		Hooks: hookRunner(t, dir, allow)})
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	res := srv.Log()[1].LastToolResults()
	if !res[0].IsError || !strings.Contains(res[0].Content, `denied by the rule "Bash(rm:*)"`) {
		t.Errorf("rm under a deny rule, allowed by a hook: %q", res[0].Content)
	}
	if _, err := os.Stat(filepath.Join(dir, "kept.txt")); err != nil {
		t.Error("the denied rm ran")
	}
	if res[1].IsError {
		t.Errorf("echo allowed by the hook was refused: %q", res[1].Content)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err != nil {
		t.Error("the command the hook allowed did not run")
	}
	if n := len(rec.of(event.HookRun)); n != 2 {
		t.Errorf("%d hook.run events, want one per call", n)
	}
	if n := len(rec.of(event.PermissionRequested)); n != 0 {
		t.Errorf("%d prompts: the hook's allow should have skipped them", n)
	}
}

func TestAStopHookThatBlocksSendsTheLeadBackWithItsReasonAFewTimesAtMost(t *testing.T) {
	dir := t.TempDir()
	p, srv := testkit.Model(t, `
rules:
  - name: answer
    respond: {text: "all done"}
`)
	block := `{"Stop": [{"hooks": [{"type": "command", "command": "cat >> stops.jsonl; echo >> stops.jsonl; echo 'the tests still fail' >&2; exit 2"}]}]}`
	s := New(Config{ID: "lead", Provider: p, Hooks: hookRunner(t, dir, block)})
	res, err := s.Run(context.Background(), "finish")
	if err != nil || res.Text != "all done" {
		t.Fatalf("res %+v err %v", res, err)
	}
	log := srv.Log()
	if len(log) != 1+maxStopBlocks {
		t.Fatalf("%d requests, want %d: a blocking Stop hook must send the lead back, but not for ever", len(log), 1+maxStopBlocks)
	}
	if got := log[1].LastUserText(); !strings.Contains(got, "Stop hook feedback (continue working): the tests still fail") {
		t.Errorf("second request's user text %q lacks the hook's reason", got)
	}
	stops, _ := os.ReadFile(filepath.Join(dir, "stops.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(stops)), "\n")
	if len(lines) != 1+maxStopBlocks || strings.Contains(lines[0], `"stop_hook_active":true`) || !strings.Contains(lines[1], `"stop_hook_active":true`) {
		t.Errorf("Stop hook inputs:\n%s\nwant stop_hook_active false first, then true", stops)
	}
}

func TestAPostToolUseBlockReachesTheModelWithTheResultAndAPromptBlockStopsTheRequest(t *testing.T) {
	dir := t.TempDir()
	p, srv := testkit.Model(t, scenario("look", "b"))
	cfg := `{"PostToolUse": [{"matcher": "look", "hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"lint failed on b\"}'"}]}],
	         "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "grep -q secret && { echo 'no secrets in prompts' >&2; exit 2; }; exit 0"}]}]}`
	s := New(Config{ID: "lead", Provider: p, Tools: tools.NewSet(&probe{name: "look", kind: tools.ReadOnly}), Hooks: hookRunner(t, dir, cfg)})
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	res := srv.Log()[1].LastToolResults()
	if len(res) != 3 || !strings.Contains(res[0].Content, "ok ") || !strings.Contains(res[0].Content, "PostToolUse hook feedback:\nlint failed on b") {
		t.Fatalf("results %+v: want each result followed by the hook's reason", res)
	}
	before := len(srv.Log())
	_, err := s.Run(context.Background(), "here is my secret")
	if err == nil || !strings.Contains(err.Error(), "no secrets in prompts") || len(srv.Log()) != before {
		t.Fatalf("blocked prompt: err %v, %d new requests", err, len(srv.Log())-before)
	}
}
