package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// runner parses settings JSON's hooks value and runs them in a fresh
// folder.
func runner(t *testing.T, hooksJSON string) (*Runner, string) {
	t.Helper()
	cfg, warnings, err := Parse(json.RawMessage(hooksJSON), "/home/u/.claude/settings.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	dir := t.TempDir()
	return New(Options{Config: cfg, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}}), dir
}

type reports struct {
	mu  sync.Mutex
	all []event.HookRunData
}

func (r *reports) add(d event.HookRunData) {
	r.mu.Lock()
	r.all = append(r.all, d)
	r.mu.Unlock()
}

func TestMatchersSpeakClaudeCodesToolNamesRegexpsAndStar(t *testing.T) {
	r, _ := runner(t, `{"PreToolUse": [
		{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo bash"}]},
		{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "echo edit-or-write"}]},
		{"matcher": "mcp__memory__.*", "hooks": [{"type": "command", "command": "echo memory"}]},
		{"matcher": "*", "hooks": [{"type": "command", "command": "echo star"}]},
		{"hooks": [{"type": "command", "command": "echo empty"}]},
		{"matcher": "Task", "hooks": [{"type": "command", "command": "echo task"}]}
	]}`)
	for _, c := range []struct {
		tool string
		want []string
	}{
		{"bash", []string{"echo bash", "echo star", "echo empty"}},
		{"write", []string{"echo edit-or-write", "echo star", "echo empty"}},
		{"edit", []string{"echo edit-or-write", "echo star", "echo empty"}},
		{"multi_edit", []string{"echo star", "echo empty"}}, // Edit matches whole names only
		{"mcp__memory__read_graph", []string{"echo memory", "echo star", "echo empty"}},
		{"task", []string{"echo star", "echo empty", "echo task"}},
	} {
		var got []string
		for _, cmd := range r.matching(Input{Event: PreToolUse, Tool: c.tool}) {
			got = append(got, cmd.Command)
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: ran %v, want %v", c.tool, got, c.want)
		}
	}
	if got := r.matching(Input{Event: PostToolUse, Tool: "bash"}); len(got) != 0 {
		t.Errorf("PreToolUse hooks ran for PostToolUse: %v", got)
	}
}

func TestExitTwoBlocksWithStderrWhileOtherFailuresDoNot(t *testing.T) {
	r, _ := runner(t, `{"PreToolUse": [
		{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo 'no rm here' >&2; exit 2"}]},
		{"matcher": "Read", "hooks": [{"type": "command", "command": "echo broken >&2; exit 1"}]}
	]}`)
	var rep reports
	res := r.Run(context.Background(), Input{Event: PreToolUse, Tool: "bash", ToolInput: json.RawMessage(`{"command":"rm -rf /"}`)}, rep.add)
	if !res.Block || res.Reason != "no rm here" {
		t.Fatalf("exit 2: got %+v, want a block with stderr as the reason", res)
	}
	if len(rep.all) != 1 || rep.all[0].Outcome != event.HookBlocked || rep.all[0].ExitCode != 2 || rep.all[0].Tool != "Bash" {
		t.Fatalf("report: %+v", rep.all)
	}
	res = r.Run(context.Background(), Input{Event: PreToolUse, Tool: "read"}, rep.add)
	if res.Block || res.Decision != "" {
		t.Fatalf("exit 1 must not block: %+v", res)
	}
	if last := rep.all[len(rep.all)-1]; last.Outcome != event.HookError || last.Message != "exit status 1: broken" {
		t.Fatalf("exit 1 report: %+v", last)
	}
}

func TestPermissionDecisionsCombineDenyOverAskOverAllow(t *testing.T) {
	allow := `{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\"}}'"}`
	ask := `{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"check it\"}}'"}`
	deny := `{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"not .env\"}}'"}`
	for _, c := range []struct {
		hooks, want, reason string
		block               bool
	}{
		{allow, "allow", "", false},
		{allow + "," + ask, "ask", "check it", false},
		{ask + "," + deny + "," + allow, "deny", "not .env", true},
	} {
		r, _ := runner(t, `{"PreToolUse": [{"matcher": "Read", "hooks": [`+c.hooks+`]}]}`)
		res := r.Run(context.Background(), Input{Event: PreToolUse, Tool: "read"}, nil)
		if res.Decision != c.want || res.DecisionReason != c.reason || res.Block != c.block {
			t.Errorf("%s: got %+v, want %s (%q) block=%v", c.hooks, res, c.want, c.reason, c.block)
		}
	}
}

func TestPromptHooksAddTheirPlainStdoutAndAdditionalContextForTheModel(t *testing.T) {
	r, _ := runner(t, `{"UserPromptSubmit": [{"hooks": [
		{"type": "command", "command": "echo 'the sprint ends Friday'"},
		{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"UserPromptSubmit\", \"additionalContext\": \"prefer small commits\"}}'"}
	]}], "PostToolUse": [{"hooks": [{"type": "command", "command": "echo plain text is for the transcript"}]}]}`)
	res := r.Run(context.Background(), Input{Event: UserPromptSubmit, Prompt: "hi"}, nil)
	if strings.Join(res.Context, "|") != "the sprint ends Friday|prefer small commits" {
		t.Fatalf("context: %q", res.Context)
	}
	if res := r.Run(context.Background(), Input{Event: PostToolUse, Tool: "bash"}, nil); len(res.Context) != 0 {
		t.Fatalf("a PostToolUse hook's plain stdout became context: %q", res.Context)
	}
}

func TestJSONAnswersBlockStopAndTellTheUser(t *testing.T) {
	r, _ := runner(t, `{"Stop": [{"hooks": [
		{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"tests still fail\", \"systemMessage\": \"kept going\"}'"}
	]}], "PostToolUse": [{"hooks": [
		{"type": "command", "command": "echo '{\"continue\": false, \"stopReason\": \"build broke\"}'"}
	]}]}`)
	var rep reports
	res := r.Run(context.Background(), Input{Event: Stop}, rep.add)
	if !res.Block || res.Reason != "tests still fail" {
		t.Fatalf("stop: %+v", res)
	}
	if rep.all[0].Outcome != event.HookBlocked || rep.all[0].Message != "tests still fail" {
		t.Fatalf("report: %+v", rep.all[0])
	}
	res = r.Run(context.Background(), Input{Event: PostToolUse, Tool: "bash"}, nil)
	if !res.Stop || res.StopReason != "build broke" || res.Block {
		t.Fatalf("continue false: %+v", res)
	}
}

func TestAHookReadsClaudeCodesJSONOnStdinAndTheProjectDir(t *testing.T) {
	r, dir := runner(t, `{"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"type": "command", "command": "cat > \"$CLAUDE_PROJECT_DIR/in.json\""}
	]}]}`)
	r.Run(context.Background(), Input{Event: PreToolUse, SessionID: "s-1", Tool: "bash", ToolUseID: "call-7",
		ToolInput: json.RawMessage(`{"command":"go test ./..."}`)}, nil)
	data, err := os.ReadFile(filepath.Join(dir, "in.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
		Event     string `json:"hook_event_name"`
		Tool      string `json:"tool_name"`
		ToolUseID string `json:"tool_use_id"`
		Mode      string `json:"permission_mode"`
		ToolInput struct {
			Command string `json:"command"`
		} `json:"tool_input"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if in.SessionID != "s-1" || in.Cwd != dir || in.Event != "PreToolUse" || in.Tool != "Bash" ||
		in.ToolUseID != "call-7" || in.ToolInput.Command != "go test ./..." || in.Mode != "default" {
		t.Fatalf("stdin: %s", data)
	}
}

func TestATimedOutHookIsKilledWithWhatItStartedAndReportedOnce(t *testing.T) {
	r, dir := runner(t, `{"Stop": [{"hooks": [
		{"type": "command", "command": "sleep 30 & echo $! > bg; sleep 30", "timeout": 0.3}
	]}]}`)
	var rep reports
	start := time.Now()
	res := r.Run(context.Background(), Input{Event: Stop}, rep.add)
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the run took %s: a hook past its timeout held the turn", took)
	}
	if res.Block {
		t.Fatalf("a timeout blocked: %+v", res)
	}
	if len(rep.all) != 1 || rep.all[0].Outcome != event.HookTimeout || !strings.Contains(rep.all[0].Message, "timed out after 300ms") {
		t.Fatalf("report: %+v", rep.all)
	}
	pid, err := os.ReadFile(filepath.Join(dir, "bg"))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(3 * time.Second); alive(strings.TrimSpace(string(pid))); {
		if time.Now().After(deadline) {
			t.Fatal("the hook's background child outlived it")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTheHooksOfOneEventRunAtTheSameTime(t *testing.T) {
	// Each hook marks itself started, then waits for the other two: run
	// one after another, the first would time out.
	wait := `touch %s; for i in $(seq 100); do [ -e a ] && [ -e b ] && [ -e c ] && exit 0; sleep 0.05; done; exit 1`
	var hooks []string
	for _, n := range []string{"a", "b", "c"} {
		cmd, _ := json.Marshal(strings.Replace(wait, "%s", n, 1))
		hooks = append(hooks, `{"type": "command", "command": `+string(cmd)+`}`)
	}
	r, _ := runner(t, `{"SessionStart": [{"matcher": "startup", "hooks": [`+strings.Join(hooks, ",")+`]}]}`)
	var rep reports
	r.Run(context.Background(), Input{Event: SessionStart, Source: "startup"}, rep.add)
	if len(rep.all) != 3 {
		t.Fatalf("reports: %+v", rep.all)
	}
	for _, d := range rep.all {
		if d.Outcome != event.HookOK {
			t.Fatalf("a hook did not see the others running: %+v", d)
		}
	}
	if got := r.matching(Input{Event: SessionStart, Source: "resume"}); len(got) != 0 {
		t.Fatalf("the startup matcher matched resume: %v", got)
	}
}

func TestCancellingTheTurnStopsItsHooks(t *testing.T) {
	r, _ := runner(t, `{"Stop": [{"hooks": [{"type": "command", "command": "sleep 30"}]}]}`)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var rep reports
	start := time.Now()
	r.Run(ctx, Input{Event: Stop}, rep.add)
	if time.Since(start) > 5*time.Second || len(rep.all) != 1 || rep.all[0].Outcome != event.HookTimeout {
		t.Fatalf("took %s, reports %+v", time.Since(start), rep.all)
	}
}

func TestParseSkipsWhatAtomicCannotRunSayingSo(t *testing.T) {
	cfg, warnings, err := Parse(json.RawMessage(`{
		"PreToolUse": [{"matcher": "Bash(", "hooks": [{"type": "command", "command": "x"}]},
		               {"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "judge"}, {"type": "command", "command": "ok", "timeout": 5}]}],
		"PermissionRequest": [{"hooks": [{"type": "command", "command": "y"}]}]
	}`), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Count() != 1 || cfg[PreToolUse][0].Commands[0].Timeout != 5*time.Second || cfg[PreToolUse][0].Commands[0].Source != "f.json" {
		t.Fatalf("config: %+v", cfg)
	}
	joined := strings.Join(warnings, "\n")
	for _, w := range []string{`matcher "Bash(" is not a valid regular expression`, `hook type "prompt"`, "PermissionRequest"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings miss %q:\n%s", w, joined)
		}
	}
	if _, _, err := Parse(json.RawMessage(`["not an object"]`), "f.json"); err == nil {
		t.Fatal("a hooks value of the wrong shape parsed")
	}
}

func TestARunnerWithoutHooksIsNilAndRunsNothing(t *testing.T) {
	var r *Runner = New(Options{})
	if r != nil || r.Has(Stop) {
		t.Fatal("a runner with no hooks")
	}
	if res := r.Run(context.Background(), Input{Event: Stop}, nil); res.Block {
		t.Fatal("nil runner blocked")
	}
	more, _, _ := Parse(json.RawMessage(`{"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}`), "agent.md")
	if w := r.With(more, Options{Dir: t.TempDir()}); !w.Has(Stop) {
		t.Fatal("an agent's hooks were not added to an empty runner")
	}
}

// alive reports whether process pid runs (an unreaped zombie does not).
func alive(pid string) bool {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}
