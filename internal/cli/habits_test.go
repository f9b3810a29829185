package cli

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/store"
)

// modelServer serves scenario on loopback for the run's Anthropic SDK.
func modelServer(t *testing.T, scenario string) *loopback.Server {
	t.Helper()
	sc, err := loopback.ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatal(err)
	}
	srv := loopback.New(sc)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

const answerHi = `rules:
  - {name: hi, match: {}, respond: {text: "hello from the model"}}
`

// onModel are the flags of a headless run against srv.
func onModel(srv *loopback.Server, args ...string) []string {
	return append([]string{"--provider", "anthropic", "--base-url", srv.URL(), "--model", "m", "--no-session-persistence"}, args...)
}

var withKey = map[string]string{"ANTHROPIC_API_KEY": "k"}

func TestClaudeCodesPrintModeAndCodexsExecRunHeadless(t *testing.T) {
	for _, args := range [][]string{
		{"-p", "hi"},
		{"--print", "hi"},
		{"-p", "--verbose", "hi"},
		{"--prompt", "hi"},
		{"hi", "-p"},
		{"exec", "hi"},
		{"run", "hi", "--verbose"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			srv := modelServer(t, answerHi)
			line := onModel(srv, args...)
			if args[0] == "exec" || args[0] == "run" { // the command comes first
				line = append([]string{args[0]}, onModel(srv, args[1:]...)...)
			}
			code, out, errOut := runEnv(t, withKey, line...)
			if code != 0 || strings.TrimSpace(out) != "hello from the model" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and the model's answer", code, out, errOut)
			}
			if log := srv.Log(); len(log) != 1 || log[0].LastUserText() != "hi" {
				t.Fatalf("requests %+v; want one with the prompt hi", log)
			}
		})
	}
}

func TestSystemPromptFlagsReplaceAndEndTheLeadsPrompt(t *testing.T) {
	cases := []struct {
		args         []string
		want, reject string
	}{
		{[]string{"--system-prompt", "You are a pirate."}, "You are a pirate.", "You are Atomic"},
		{[]string{"--append-system-prompt", "Answer in French."}, "Answer in French.", ""},
		{[]string{"--system-prompt", "Be terse.", "--append-system-prompt", "Use metric."}, "Be terse.\n\nUse metric.", "You are Atomic"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			srv := modelServer(t, answerHi)
			code, _, errOut := runEnv(t, withKey, onModel(srv, append(tc.args, "-p", "hi")...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			sys := srv.Log()[0].System
			if !strings.Contains(sys, tc.want) || (tc.reject != "" && strings.Contains(sys, tc.reject)) {
				t.Fatalf("system prompt %q; want it to hold %q and not %q", sys, tc.want, tc.reject)
			}
			if strings.HasSuffix(strings.Join(tc.args, " "), "Answer in French.") && !strings.HasSuffix(sys, "Answer in French.") {
				t.Fatalf("system prompt %q does not end with the appended text", sys)
			}
		})
	}
}

func TestCodexsDashCSetsAConfigFieldForTheRunAndAloneContinues(t *testing.T) {
	srv := modelServer(t, answerHi)
	code, _, errOut := runEnv(t, withKey, "-c", `model="from-override"`, "--provider", "anthropic", "--base-url", srv.URL(), "--no-session-persistence", "-p", "hi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if m := srv.Log()[0].Model; m != "from-override" {
		t.Fatalf("the request's model is %q; want the -c model=… override", m)
	}
	for args, want := range map[string]string{
		"-c max_turns=0": "config max_turns: must be at least 1, got 0 (in -c KEY=VALUE over ",
		"-c bogus=1":     `unknown field "bogus"`,
	} {
		code, _, errOut := run(t, append(strings.Fields(args), "--demo", "-p", "hi")...)
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", args, code, errOut, want)
		}
	}

	dir, state := t.TempDir(), t.TempDir()
	if code, _, errOut := runIn(t, dir, state, "--demo", "-p", "hi"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runIn(t, dir, state, "-c", "--demo", "-p", "and again"); code != 0 {
		t.Fatalf("-c: exit %d: %s", code, errOut)
	}
	st, err := store.Open(t.Context(), filepath.Join(state, "atomic", store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, _ := st.Sessions(t.Context())
	if len(list) != 1 {
		t.Fatalf("%d sessions; want -c to continue the one session", len(list))
	}
	if p, _ := st.Prompts(t.Context(), list[0].ID); strings.Join(p, "|") != "hi|and again" {
		t.Fatalf("prompts %q", p)
	}
}

// parsed is common after parsing args as the chat UI does.
func parsed(t *testing.T, args ...string) (*common, int, string) {
	t.Helper()
	fs := flag.NewFlagSet("atomic", flag.ContinueOnError)
	var c common
	c.register(fs)
	var errOut strings.Builder
	code, _ := c.parse(fs, args, IOStreams{Out: io.Discard, Err: &errOut}, usage)
	return &c, code, errOut.String()
}

func TestClaudeAndCodexPermissionFlagsAreAtomicsModes(t *testing.T) {
	c, code, errOut := parsed(t, "--allowedTools", "read,bash(go test:*)", "--disallowedTools", "bash(rm:*)", "--dangerously-skip-permissions")
	if code != 0 || c.permissionMode != "bypassPermissions" {
		t.Fatalf("exit %d (%s), mode %q; want bypassPermissions", code, errOut, c.permissionMode)
	}
	if strings.Join(c.allowed, "|") != "read|bash(go test:*)" || strings.Join(c.disallowed, "|") != "bash(rm:*)" {
		t.Fatalf("allowed %q, disallowed %q", c.allowed, c.disallowed)
	}
	c, code, errOut = parsed(t, "--full-auto")
	if code != 0 || c.permissionMode != "acceptEdits" || c.sandbox != "workspace-write" {
		t.Fatalf("--full-auto: exit %d (%s), mode %q, sandbox %q; want acceptEdits in workspace-write", code, errOut, c.permissionMode, c.sandbox)
	}
	for args, want := range map[string]string{
		"--full-auto --permission-mode plan":                       "--full-auto is --permission-mode acceptEdits: drop --permission-mode plan",
		"--full-auto --sandbox off":                                "--full-auto runs commands in the workspace-write sandbox: drop --sandbox off",
		"--dangerously-skip-permissions --full-auto":               "give one of them",
		"--dangerously-skip-permissions --permission-mode=default": "--dangerously-skip-permissions is --permission-mode bypassPermissions",
	} {
		if _, code, errOut := parsed(t, strings.Fields(args)...); code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", args, code, errOut, want)
		}
	}
}

func TestCodexsResumeCommandOpensTheChatUIOnASession(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, []string{"--resume="}},
		{[]string{"atomic-1"}, []string{"--resume=atomic-1"}},
		{[]string{"--last"}, []string{"--continue"}},
		{[]string{"atomic-1", "--model", "m"}, []string{"--resume=atomic-1", "--model", "m"}},
	} {
		if got := resumeArgs(tc.in); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("resumeArgs(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
	// Without a terminal it stops where the chat UI does, not at "unknown command".
	if code, _, errOut := run(t, "resume", "--last", "--demo"); code != 2 || !strings.Contains(errOut, "needs a terminal") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestHelpAndErrorsWriteLongFlagsWithTwoDashes(t *testing.T) {
	_, out, _ := run(t, "run", "--help")
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") && !strings.HasPrefix(line, "  -p") &&
			!strings.HasPrefix(line, "  -c, --") && !strings.HasPrefix(line, "  -r, --") {
			t.Errorf("help line %q: a long flag with one dash", line)
		}
	}
	for _, want := range []string{"  -c, --continue\n", "  -r, --resume ID\n", "  --allowed-tools, --allowedTools value\n", "  -p, --prompt string\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
	for args, want := range map[string]string{
		"run --max-turns x -p hi": `invalid value "x" for flag --max-turns:`,
		"run --nope -p hi":        "flag provided but not defined: --nope",
		"run -p hi --model":       "flag needs an argument: --model",
	} {
		if code, _, errOut := run(t, strings.Fields(args)...); code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", args, code, errOut, want)
		}
	}
}

func TestClaudeStreamJSONIsAnOutputFormatOfItsOwnBesideAtomics(t *testing.T) {
	srv := modelServer(t, answerHi)
	code, out, errOut := runEnv(t, withKey, onModel(srv, "-p", "hi", "--output-format", "claude-stream-json", "--permission-mode", "plan")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains(lines[0], `"subtype":"init"`) || !strings.Contains(lines[0], `"permissionMode":"plan"`) ||
		!strings.Contains(lines[len(lines)-1], `"type":"result"`) || !strings.Contains(lines[len(lines)-1], `"result":"hello from the model"`) {
		t.Fatalf("claude-stream-json:\n%s", out)
	}
	if code, _, errOut := run(t, "-p", "hi", "--demo", "--output-format", "claude"); code != 2 ||
		!strings.Contains(errOut, "want text, json, stream-json or claude-stream-json") {
		t.Fatalf("a bad format: exit %d, stderr %q", code, errOut)
	}
}

// runStdin runs the CLI with stdin and the API key, in a scratch folder.
func runStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_STATE_HOME": filepath.Join(dir, "state"), "ANTHROPIC_API_KEY": "k"}
	var out, errOut strings.Builder
	code := Run(t.Context(), args, IOStreams{In: strings.NewReader(stdin), Out: &out, Err: &errOut, Getenv: func(k string) string { return env[k] }, Dir: dir})
	return code, out.String(), errOut.String()
}

const twoTurns = `rules:
  - {name: second, match: {last_user_contains: "and the second"}, respond: {text: "answer two"}}
  - {name: first, match: {last_user_contains: "first question"}, respond: {text: "answer one"}}
`

// Claude Code's stream-json input, as tools that drive it write it.
const userLines = `{"type": "user", "message": {"role": "user", "content": "first question"}, "parent_tool_use_id": null, "session_id": ""}
{"type": "control_request", "request_id": "req_init", "request": {"subtype": "initialize"}}
{"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "and the second"}]}, "parent_tool_use_id": null, "session_id": ""}
`

func TestStreamJSONInputRunsEachUserMessageAsATurnOfOneSession(t *testing.T) {
	for format, want := range map[string][]string{
		"text":               {"answer one\nanswer two\n"},
		"json":               {`"result":"answer one"`, `"result":"answer two"`},
		"claude-stream-json": {`"type":"result"`, `"result":"answer one"`, `"result":"answer two"`},
	} {
		t.Run(format, func(t *testing.T) {
			srv := modelServer(t, twoTurns)
			code, out, errOut := runStdin(t, userLines, onModel(srv, "-p", "--input-format", "stream-json", "--output-format", format)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if n := strings.Count(out, `"type":"result"`); format != "text" && n != 2 {
				t.Errorf("%d results; want one per turn:\n%s", n, out)
			}
			if !strings.Contains(out, `{"type":"control_response","response":{"subtype":"success","request_id":"req_init","response":{`) || strings.Contains(errOut, "skipped") {
				t.Errorf("stdout %q, stderr %q; want the initialize request answered, nothing skipped", out, errOut)
			}
			log := srv.Log()
			if len(log) != 2 || len(log[1].Messages) < 3 {
				t.Fatalf("requests %+v; want two, the second carrying the first exchange", log)
			}
		})
	}
	for stdin, want := range map[string]string{
		"":                            "no user message on stdin",
		`{"type":"assistant"}` + "\n": "no user message on stdin",
	} {
		if code, _, errOut := runStdin(t, stdin, "-p", "--demo", "--input-format", "stream-json"); code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("stdin %q: exit %d, stderr %q; want 2 and %q", stdin, code, errOut, want)
		}
	}
	if code, _, errOut := runStdin(t, userLines, "-p", "hi", "--demo", "--input-format", "stream-json"); code != 2 || !strings.Contains(errOut, "the prompts come on stdin") {
		t.Errorf("-p PROMPT with stream-json input: exit %d, stderr %q", code, errOut)
	}
}

func TestAgentsJSONAddsClaudeCodeShapedAgentTypesForTheRun(t *testing.T) {
	srv := modelServer(t, `rules:
  - {name: final, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "reviewed"}}
  - {name: fan, match: {system_contains: "You are Atomic"}, respond: {tool_calls: [{name: task, input: {description: "review", prompt: "REVIEW-IT", subagent_type: reviewer}}]}}
  - {name: reviewer, match: {first_user_contains: REVIEW-IT}, respond: {text: "looks fine"}}
`)
	agents := `{"reviewer": {"description": "Reviews code", "prompt": "You are a strict reviewer.", "tools": ["Read", "Grep"], "model": "inherit", "color": "red", "memory": "project"}}`
	code, out, errOut := runEnv(t, withKey, onModel(srv, "--agents", agents, "-p", "review")...)
	if code != 0 || strings.TrimSpace(out) != "reviewed" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	var sub *loopback.LogEntry
	for _, e := range srv.Log() {
		if strings.Contains(e.System, "You are a strict reviewer.") {
			sub = &e
		}
	}
	if sub == nil {
		t.Fatalf("no request with the reviewer's prompt; requests %+v", srv.Log())
	}
	if strings.Join(sub.Tools, ",") != "read,grep" {
		t.Errorf("the reviewer's tools %q; want Claude Code's Read and Grep as read and grep", sub.Tools)
	}
	if !strings.Contains(errOut, "atomic: warning: agent --agents reviewer: loaded without what Atomic lacks: fields memory") {
		t.Errorf("stderr %q; want the unsupported memory field named", errOut)
	}
	for spec, want := range map[string]string{
		`[1]`:                         "--agents: want a JSON object of agents",
		`{"x": {"prompt": "p"}}`:      "--agents x: no description",
		`{"x": {"description": "d"}}`: "--agents x: no prompt",
		`{"x": {"description": "d", "prompt": 3}}`: "--agents x: prompt: want a string",
	} {
		if code, _, errOut := run(t, "--agents", spec, "--demo", "-p", "hi"); code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("--agents %s: exit %d, stderr %q; want 2 and %q", spec, code, errOut, want)
		}
	}
}

func TestSessionIDNamesTheNewSessionAndIsNeverReused(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	const id = "123e4567-e89b-12d3-a456-426614174000"
	code, out, errOut := runIn(t, dir, state, "--demo", "-p", "hi", "--session-id", id, "--output-format", "json")
	if code != 0 || !strings.Contains(out, `"session_id":"`+id+`"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the run to be session %s", code, out, errOut, id)
	}
	st, err := store.Open(t.Context(), filepath.Join(state, "atomic", store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	list, _ := st.Sessions(t.Context())
	st.Close()
	if len(list) != 1 || list[0].ID != id {
		t.Fatalf("sessions %+v; want the one saved as %s", list, id)
	}
	if code, _, errOut := runIn(t, dir, state, "--demo", "-p", "hi", "--session-id", id); code != 2 ||
		!strings.Contains(errOut, "--session-id "+id+": a session with this id was saved already (in "+dir+"): resume it with --resume "+id) {
		t.Fatalf("the id again: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runIn(t, dir, state, "--demo", "-p", "more", "--resume", id); code != 0 {
		t.Fatalf("--resume %s: exit %d, stderr %q", id, code, errOut)
	}
	for args, want := range map[string]string{
		"--session-id 42":                                  `--session-id "42": want a UUID`,
		"--session-id " + id + " --continue":               "with --continue or --resume it needs --fork-session",
		"--session-id " + id + " --no-session-persistence": "it cannot be given with --no-session-persistence",
	} {
		if code, _, errOut := run(t, append(strings.Fields(args), "--demo", "-p", "hi")...); code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", args, code, errOut, want)
		}
	}
}

func TestSettingsFlagAppliesClaudeCodeSettingsForTheRun(t *testing.T) {
	scenario := `rules:
  - {name: after, match: {has_tool_results: true}, respond: {text: "done"}}
  - {name: call, respond: {tool_calls: [{name: bash, input: {command: "echo hi"}}]}}
`
	dir := t.TempDir()
	file := filepath.Join(dir, "s.json")
	if err := os.WriteFile(file, []byte(`{"permissions": {"deny": ["Bash(echo:*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	control := modelServer(t, scenario) // without --settings the call runs
	if code, _, errOut := runEnv(t, withKey, onModel(control, "--dangerously-skip-permissions", "--sandbox", "off", "-p", "go")...); code != 0 ||
		len(control.Log()) != 2 || strings.TrimSpace(control.Log()[1].LastToolResults()[0].Content) != "hi" {
		t.Fatalf("control run: exit %d (%s), requests %+v", code, errOut, control.Log())
	}
	for _, settings := range []string{`{"permissions": {"deny": ["Bash(echo:*)"]}}`, file} {
		srv := modelServer(t, scenario)
		code, _, errOut := runEnv(t, withKey, onModel(srv, "--settings", settings, "--dangerously-skip-permissions", "-p", "go")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		log := srv.Log()
		if len(log) != 2 || len(log[1].LastToolResults()) != 1 || !strings.Contains(log[1].LastToolResults()[0].Content, "denied") {
			t.Fatalf("--settings %s: requests %+v; want the bash call denied by its deny rule, bypass mode or not", settings, log)
		}
	}
	for settings, want := range map[string]string{
		"/nonexistent/settings.json": "--settings /nonexistent/settings.json: no such file",
		`{"permissions": [}`:         "Claude Code settings --settings: ",
	} {
		if code, _, errOut := run(t, "--settings", settings, "--demo", "-p", "hi"); code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("--settings %s: exit %d, stderr %q; want 2 and %q", settings, code, errOut, want)
		}
	}
}

func TestFallbackModelAnswersWhenTheModelIsOverloaded(t *testing.T) {
	srv := modelServer(t, `rules:
  - {name: overloaded, match: {model: big}, respond: {error: {status: 529, type: overloaded_error, message: Overloaded, retry_after_ms: 1}}}
  - {name: small, match: {model: small}, respond: {text: "small answers"}}
`)
	code, out, errOut := runEnv(t, withKey, "--provider", "anthropic", "--base-url", srv.URL(), "--model", "big", "--fallback-model", "small",
		"--no-session-persistence", "-c", `retry={"max_attempts":2,"base_delay_ms":1,"max_delay_ms":1}`, "-p", "hi")
	if code != 0 || strings.TrimSpace(out) != "small answers" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the fallback's answer", code, out, errOut)
	}
	var models []string
	for _, e := range srv.Log() {
		models = append(models, e.Model)
	}
	if strings.Join(models, ",") != "big,big,small" {
		t.Fatalf("requests went to %v; want big (and its retry), then small", models)
	}
	// Without it the overload is the run's error.
	srv2 := modelServer(t, `rules:
  - {name: overloaded, respond: {error: {status: 529, type: overloaded_error, message: Overloaded, retry_after_ms: 1}}}
`)
	if code, _, errOut := runEnv(t, withKey, "--provider", "anthropic", "--base-url", srv2.URL(), "--model", "big", "--no-session-persistence",
		"-c", `retry={"max_attempts":1}`, "-p", "hi"); code == 0 || !strings.Contains(errOut, "529") {
		t.Fatalf("without --fallback-model: exit %d, stderr %q; want the 529", code, errOut)
	}
	if code, _, errOut := runEnv(t, withKey, "--provider", "anthropic", "--model", "big", "--fallback-model", "big", "-p", "hi"); code != 2 ||
		!strings.Contains(errOut, "--fallback-model big is the model itself") {
		t.Fatalf("the same model: exit %d, stderr %q", code, errOut)
	}
}

func TestForkSessionContinuesACopyAndLeavesTheOriginalAsItWas(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	if code, _, errOut := runIn(t, dir, state, "--demo", "-p", "hi"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	const fork = "0f0f0f0f-1111-4222-8333-444455556666"
	code, out, errOut := runIn(t, dir, state, "--demo", "-c", "--fork-session", "--session-id", fork, "-p", "and again", "--output-format", "json")
	if code != 0 || !strings.Contains(out, `"session_id":"`+fork+`"`) {
		t.Fatalf("fork: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	st, err := store.Open(t.Context(), filepath.Join(state, "atomic", store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, _ := st.Sessions(t.Context())
	if len(list) != 2 {
		t.Fatalf("%d sessions; want the original and its fork", len(list))
	}
	orig := list[0].ID
	if orig == fork {
		orig = list[1].ID
	}
	if p, _ := st.Prompts(t.Context(), orig); strings.Join(p, "|") != "hi" {
		t.Errorf("the original's prompts %q; want it untouched", p)
	}
	if p, _ := st.Prompts(t.Context(), fork); strings.Join(p, "|") != "hi|and again" {
		t.Errorf("the fork's prompts %q; want the original's and the new one", p)
	}
	h, _, err := st.LoadHistory(t.Context(), fork, "lead")
	if err != nil || len(h) < 4 || h[0].Parts[0].Text != "hi" {
		t.Fatalf("the fork's lead history %+v, %v; want the first exchange then the second", h, err)
	}
	completes := 0
	if err := st.Events(t.Context(), fork, func(l []byte) error {
		completes += strings.Count(string(l), `"type":"complete"`)
		return nil
	}); err != nil || completes != 2 {
		t.Fatalf("the fork holds %d completes (%v); want the original's and its own", completes, err)
	}
	// The fork resumes as a session of its own.
	if code, _, errOut := runIn(t, dir, state, "--demo", "--resume", fork, "-p", "third"); code != 0 {
		t.Fatalf("--resume the fork: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, "--demo", "--fork-session", "-p", "hi"); code != 2 || !strings.Contains(errOut, "--fork-session copies the session --continue or --resume names") {
		t.Fatalf("--fork-session alone: exit %d, stderr %q", code, errOut)
	}
}
