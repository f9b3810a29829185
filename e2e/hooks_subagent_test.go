//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
)

// subagentHooksSettings: SubagentStart adds context and logs; SubagentStop
// logs, and a gate matching the codex-worker type blocks its first stop.
const subagentHooksSettings = `{
  "hooks": {
    "SubagentStart": [{"hooks": [
      {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/log.sh"},
      {"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"SubagentStart\", \"additionalContext\": \"The tests live in ./spec.\"}}'"}
    ]}],
    "SubagentStop": [
      {"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/log.sh"}]},
      {"matcher": "codex-worker", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/gate.sh"}]}
    ]
  }
}`

const stopGateScript = `#!/bin/bash
case "$(cat)" in
  *'"stop_hook_active":true'*) exit 0 ;;
esac
echo "say CHECKED once you checked the spec" >&2
exit 2
`

// hookedFanOut: the native lead starts a Codex sub-agent and a native one;
// the Codex one answers again when its SubagentStop hook sends it back.
const hookedFanOut = `
rules:
  - name: lead-final
    match: {tool_results_contain_all: [done CODEX CHECKED, done NATIVE]}
    respond: {text: "Both are done."}
  - name: sub-codex-again
    match: {last_user_contains: "SubagentStop hook feedback"}
    respond: {text: "done CODEX CHECKED"}
  - name: sub-codex
    match: {last_user_contains: "SUB-CODEX"}
    respond: {text: "done CODEX"}
  - name: sub-native
    match: {last_user_contains: "SUB-NATIVE"}
    respond: {text: "done NATIVE"}
  - name: lead-spawn
    match: {last_user_contains: "HOOKED", has_tool_results: false}
    respond:
      tool_calls:
        - {name: task, input: {description: "codex part", prompt: "SUB-CODEX: report that you are done. Use no tools.", subagent_type: codex-worker}}
        - {name: task, input: {description: "native part", prompt: "SUB-NATIVE: report that you are done.", subagent_type: native-worker}}
  - name: other
    respond: {text: "OK."}
`

// A sub-agent on an external CLI fires SubagentStart and SubagentStop as a
// native one does, with the same JSON: its start hook's context reaches
// the CLI with its task, and a stop hook that blocks sends it back once.
func TestSubagentStartAndStopHooksFireForACLISubagentWithTheJSONOfANativeOne(t *testing.T) {
	srv := server(t, hookedFanOut)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd, _ := mixedCommand(t, ctx, srv.URL(), "HOOKED: start both workers.", "--trust-project-settings")
	for name, body := range map[string]string{"settings.json": subagentHooksSettings, "hooks/log.sh": logScript, "hooks/gate.sh": stopGateScript} {
		p := filepath.Join(cmd.Dir, ".claude", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := runCmd(t, cmd)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	evs := checkMixedStream(t, r.stdout)
	if last := string(evs[len(evs)-1].Data); !strings.Contains(last, "Both are done.") {
		t.Errorf("the lead's answer %s; want both results, the codex one after its stop hook sent it back", last)
	}
	for _, rule := range []string{"sub-codex", "sub-native"} {
		got := loopback.ByRule(srv.Log(), rule)
		if len(got) != 1 {
			t.Fatalf("%d requests of %s", len(got), rule)
		}
		all, _ := json.Marshal(got[0].Messages)
		if !strings.Contains(string(all), "The tests live in ./spec.") {
			t.Errorf("%s's first request lacks the SubagentStart hook's context: %s", rule, all)
		}
	}
	again := loopback.ByRule(srv.Log(), "sub-codex-again")
	if len(again) != 1 || !strings.Contains(again[0].Messages[len(again[0].Messages)-1].Text, "say CHECKED once you checked the spec") {
		t.Fatalf("the codex worker was sent back %d times, want once with the hook's reason", len(again))
	}

	logged, err := os.ReadFile(filepath.Join(cmd.Dir, "hooks.log"))
	if err != nil {
		t.Fatalf("no hook log: %v", err)
	}
	type hookIn struct {
		Event   string `json:"hook_event_name"`
		Session string `json:"session_id"`
		Cwd     string `json:"cwd"`
		ID      string `json:"agent_id"`
		Type    string `json:"agent_type"`
		Active  *bool  `json:"stop_hook_active"`
		Last    string `json:"last_assistant_message"`
	}
	seen := map[string][]hookIn{}
	keys := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(logged)), "\n") {
		body, _, _ := strings.Cut(line, " key=")
		var in hookIn
		var raw map[string]any
		if err := json.Unmarshal([]byte(body), &in); err != nil || json.Unmarshal([]byte(body), &raw) != nil {
			t.Fatalf("hook stdin is not JSON: %q: %v", body, err)
		}
		if in.Session == "" || in.Cwd != cmd.Dir || in.ID == "" {
			t.Errorf("hook stdin lacks session_id, cwd or agent_id: %s", body)
		}
		k := in.Event + " " + in.Type
		seen[k] = append(seen[k], in)
		var names []string
		for n := range raw {
			names = append(names, n)
		}
		slices.Sort(names)
		keys[k] = names
	}
	for _, k := range []string{"SubagentStart codex-worker", "SubagentStart native-worker", "SubagentStop native-worker"} {
		if len(seen[k]) != 1 {
			t.Errorf("%q logged %d times, want once (all: %v)", k, len(seen[k]), seen)
		}
	}
	stops := seen["SubagentStop codex-worker"]
	if len(stops) != 2 || *stops[0].Active || !*stops[1].Active || stops[0].Last != "done CODEX" || stops[1].Last != "done CODEX CHECKED" {
		t.Errorf("the codex worker's SubagentStop runs %+v; want its answer, then again after the block with stop_hook_active", stops)
	}
	for _, ev := range []string{"SubagentStart", "SubagentStop"} {
		if cli, native := keys[ev+" codex-worker"], keys[ev+" native-worker"]; !slices.Equal(cli, native) {
			t.Errorf("%s JSON fields: CLI sub-agent %v, native %v; want the same", ev, cli, native)
		}
	}
}
