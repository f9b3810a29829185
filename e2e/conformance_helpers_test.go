//go:build unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// The conformance suite: the same scenarios, run through the built binary,
// against every backend. Each scenario is a loopback script that any of
// the five backends can follow (the loopback speaks the Messages API, Chat
// Completions and Responses on one port), and the checks are SPEC §1/§2
// seen from the outside: stream-json, the exit status, the model requests.

// conformBackend is one backend as the suite runs it.
type conformBackend struct {
	name string
	// cli is the CLI under test (skips, or fails under CI=true, when it is
	// not installed); nil for native.
	cli func(testing.TB) string
	// api is the model API the backend speaks to the loopback.
	api string
	// model is the --model the run names.
	model string
	// fanOut is a loopback scenario in this backend's terms in which the
	// lead starts three sync sub-agents (SUBTASK-ALPHA, -BETA, -GAMMA,
	// answering "done X" after 2 s) and sums up once all are in;
	// fanOutPrompt starts it.
	fanOut, fanOutPrompt string
	// spawn is a YAML tool call of the lead's that starts one sync
	// sub-agent with the prompt PROMPT; bash one of a sub-agent's that
	// runs the shell command COMMAND; subMatch what tells a sub-agent's
	// requests from the lead's besides their prompt; wait, for a lead that
	// waits for its sub-agents with a tool call of its own, the rule that
	// makes it.
	spawn, bash, subMatch, wait string
	// spawnTool and bashTool are the names of the two tools spawn and
	// bash call; noNest, for a backend whose sub-agents are given no
	// spawnTool (so a sub-agent cannot start one of its own), says why.
	spawnTool, bashTool, noNest string
	// spawnBG is spawn for a background sub-agent: the lead's turn ends
	// while it works.
	spawnBG string
}

// conformBackends are the five backends, native first.
var conformBackends = []conformBackend{
	{name: "native", api: "anthropic", model: "claude-test-model", fanOut: nativeFanOut, fanOutPrompt: "FANOUT: start three sub-agents in parallel.",
		spawn:   `{name: task, input: {description: "Slow part", prompt: "PROMPT", subagent_type: general-purpose}}`,
		spawnBG: `{name: task, input: {description: "Slow part", prompt: "PROMPT", subagent_type: general-purpose, mode: background}}`,
		bash:    `{name: bash, input: {command: "COMMAND"}}`, spawnTool: "task", bashTool: "bash"},
	{name: "claude-code", cli: testkit.ClaudeCLI, api: "anthropic", model: "claude-test-model", fanOut: claudeFanOut, fanOutPrompt: "FANOUT: start three sub-agents in parallel.",
		spawnBG: `{name: Agent, input: {description: "Slow part", prompt: "PROMPT", subagent_type: general-purpose, run_in_background: true}}`,
		spawn:   `{name: Agent, input: {description: "Slow part", prompt: "PROMPT", subagent_type: general-purpose, run_in_background: false}}`,
		bash:    `{name: Bash, input: {command: "COMMAND", description: "Slow work"}}`, spawnTool: "Agent", bashTool: "Bash"},
	{name: "codex", cli: testkit.CodexCLI, api: "openai", model: "gpt-test", fanOut: testkit.CodexFanOut, fanOutPrompt: "CAP-FG3: start three sub-agents in parallel, then sum up.",
		spawnBG: `{name: spawn_agent, input: {message: "PROMPT"}}`,
		spawn:   `{name: spawn_agent, input: {message: "PROMPT"}}`, bash: `{name: exec_command, input: {cmd: "COMMAND"}}`,
		subMatch: "tools_exclude: [spawn_agent]", spawnTool: "spawn_agent", bashTool: "exec_command",
		noNest: "Codex gives its sub-agents no spawn_agent tool (multi_agent depth 1)",
		wait:   `{name: lead-wait, match: {has_tool_results: true, tools_include: [wait_agent]}, respond: {tool_calls: [{name: wait_agent, input: {timeout_ms: 120000}, collect: {json_field: agent_id, into: targets}}]}}`},
	{name: "opencode", cli: testkit.OpenCodeCLI, api: "openai", model: "gpt-test", fanOut: testkit.OpenCodeFanOut, fanOutPrompt: "CAP-FG3: start three sub-agents in parallel, then sum up.",
		spawnBG: `{name: task, input: {description: "Slow part", subagent_type: general, background: true, prompt: "PROMPT"}}`,
		spawn:   `{name: task, input: {description: "Slow part", subagent_type: general, prompt: "PROMPT"}}`,
		bash:    `{name: bash, input: {command: "COMMAND", description: "Slow work"}}`, subMatch: "tools_include: [bash]",
		spawnTool: "task", bashTool: "bash", noNest: "OpenCode gives its sub-agents no task tool"},
	{name: "copilot", cli: testkit.CopilotCLI, api: "openai", model: "gpt-test", fanOut: testkit.CopilotFanOut, fanOutPrompt: "CAP-FG3: start three sub-agents in parallel, then sum up.",
		spawnBG: `{name: task, input: {name: slow, description: "Slow part", agent_type: general-purpose, mode: background, prompt: "PROMPT"}}`,
		spawn:   `{name: task, input: {name: slow, description: "Slow part", agent_type: general-purpose, mode: sync, prompt: "PROMPT"}}`,
		bash:    `{name: bash, input: {command: "COMMAND", description: "Slow work", mode: sync}}`, spawnTool: "task", bashTool: "bash"},
}

// nativeFanOut is claudeFanOut for Atomic's own task tool.
const nativeFanOut = `
rules:
  - name: sub-alpha
    match: {last_user_contains: "SUBTASK-ALPHA"}
    respond: {delay_ms: 2000, text: "done ALPHA"}
  - name: sub-beta
    match: {last_user_contains: "SUBTASK-BETA"}
    respond: {delay_ms: 2000, text: "done BETA"}
  - name: sub-gamma
    match: {last_user_contains: "SUBTASK-GAMMA"}
    respond: {delay_ms: 2000, text: "done GAMMA"}
  - name: lead-final
    match: {last_user_contains: "FANOUT", has_tool_results: true}
    respond: {text: "All three are done."}
  - name: lead-spawn
    match: {last_user_contains: "FANOUT", has_tool_results: false}
    respond:
      tool_calls:
        - {name: task, input: {description: "Subtask alpha", prompt: "SUBTASK-ALPHA: report that you are finished.", subagent_type: general-purpose}}
        - {name: task, input: {description: "Subtask beta", prompt: "SUBTASK-BETA: report that you are finished.", subagent_type: general-purpose}}
        - {name: task, input: {description: "Subtask gamma", prompt: "SUBTASK-GAMMA: report that you are finished.", subagent_type: general-purpose}}
  - name: other
    respond: {text: "OK."}
`

// eachBackend runs f as a subtest per backend.
func eachBackend(t *testing.T, f func(t *testing.T, b conformBackend)) {
	for _, b := range conformBackends {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

// conformRun is one `atomic run` of the suite, with its own home (every
// process it starts inherits HOME) and workspace.
type conformRun struct {
	cmd       *exec.Cmd
	home, dir string
}

// command builds `atomic run` on backend b against baseURL, as a user
// would: --backend (none for native), --model, --base-url, then args. The
// environment has only what the run needs: keys for both APIs, throwaway
// homes for the CLIs, and no telemetry.
func (b conformBackend) command(t *testing.T, ctx context.Context, baseURL string, args ...string) conformRun {
	t.Helper()
	home, dir := t.TempDir(), t.TempDir()
	full := []string{"run", "--model", b.model, "--base-url", baseURL}
	if b.cli == nil {
		full = append(full, "--provider", b.api)
		// Fast retries, so that an error the provider retries costs
		// milliseconds.
		cfg := filepath.Join(home, ".config", "atomic")
		if err := os.MkdirAll(cfg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"retry":{"max_attempts":2,"base_delay_ms":20,"max_delay_ms":100}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	} else {
		full = append(full, "--backend", b.name, "--backend-bin", b.cli(t))
	}
	cmd := exec.CommandContext(ctx, binary, append(full, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local/share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local/state"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"ANTHROPIC_API_KEY=test-key", "OPENAI_API_KEY=test-key",
		"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "NO_COLOR=1", "LANG=C.UTF-8",
		// Claude Code retries even a 401 ten times, backing off for
		// minutes; the failure it then reports is the same.
		"CLAUDE_CODE_MAX_RETRIES=1"}
	return conformRun{cmd: cmd, home: home, dir: dir}
}

// run runs `atomic run` on b to its end (at most two minutes).
func (b conformBackend) run(t *testing.T, baseURL string, args ...string) (result, []event.Raw) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	r := runCmd(t, b.command(t, ctx, baseURL, args...).cmd)
	return r, events(t, r.stdout)
}

// lastOf is the last event of type typ, and whether there is one.
func lastOf(evs []event.Raw, typ event.Type) (event.Raw, bool) {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == typ {
			return evs[i], true
		}
	}
	return event.Raw{}, false
}

// interruptScenario: the lead starts one sub-agent (sync, or in the
// background), which runs command (a long sleep) in its shell; whatever
// comes after is scripted too, so that a request made after the interrupt
// is answered (and seen).
func (b conformBackend) interruptScenario(command string, background bool) string {
	spawn, wait := b.spawn, b.wait
	if background {
		spawn, wait = b.spawnBG, ""
	}
	sub := "any_user_contains: SUBTASK-SLEEP"
	if b.subMatch != "" {
		sub += ", " + b.subMatch
	}
	sc := "rules:\n" +
		"  - name: sub-sleep\n    match: {" + sub + ", has_tool_results: false}\n    respond:\n      text: Sleeping.\n      tool_calls:\n        - " +
		strings.ReplaceAll(b.bash, "COMMAND", command) + "\n" +
		"  - name: sub-after\n    match: {" + sub + ", has_tool_results: true}\n    respond: {text: done SLEEP}\n"
	if wait != "" {
		sc += "  - " + wait + "\n"
	}
	return sc +
		"  - name: lead-after\n    match: {has_tool_results: true}\n    respond: {text: The sub-agent is done.}\n" +
		"  - name: lead-spawn\n    match: {last_user_contains: CONFORM-INT, has_tool_results: false}\n    respond:\n      text: Starting a slow sub-agent.\n      tool_calls:\n        - " +
		strings.ReplaceAll(spawn, "PROMPT", "SUBTASK-SLEEP: run the command, then report. Use the shell.") + "\n" +
		"  - name: other\n    respond: {text: OK.}\n"
}

// fanOutScenario is a lead that starts n sub-agents in one message, each
// answering "ok" after delayMS.
func fanOutScenario(n int, delayMS int) string {
	var calls strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&calls, "        - {name: task, input: {description: \"task %d\", prompt: \"TASK-%d\"}}\n", i, i)
	}
	return fmt.Sprintf(`
rules:
  - {name: final, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "done"}}
  - name: fanout
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
%s  - {name: sub, respond: {text: "ok", delay_ms: %d}}
`, calls.String(), delayMS)
}
