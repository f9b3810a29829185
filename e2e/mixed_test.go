//go:build unix

package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// mixedAgents are agent files naming a backend each: the types a native
// lead hands work to in a mixed tree.
var mixedAgents = map[string]string{
	"claude-worker.md":   "---\nname: claude-worker\ndescription: Works in Claude Code.\nbackend: claude-code\n---\nYou are a worker.\n",
	"codex-worker.md":    "---\nname: codex-worker\ndescription: Works in Codex.\nbackend: codex\nmodel: gpt-test\n---\nYou are a worker.\n",
	"native-worker.md":   "---\nname: native-worker\ndescription: Works in Atomic.\nbackend: native\n---\nYou are a worker.\n",
	"opencode-worker.md": "---\nname: opencode-worker\ndescription: Works in OpenCode.\nbackend: opencode\nmodel: gpt-test\n---\nYou are a worker.\n",
}

// mixedFanOut: the native lead starts one sub-agent of each type in one
// message; each answers its own prompt after 2 s, whichever CLI asks.
const mixedFanOut = `
rules:
  - name: lead-final
    match: {tool_results_contain_all: [done CLAUDE, done CODEX, done OPENCODE, done NATIVE]}
    respond: {text: "All four are done."}
  - name: sub-opencode
    match: {last_user_contains: "SUB-OPENCODE"}
    respond: {delay_ms: 2000, text: "done OPENCODE"}
  - name: sub-claude
    match: {last_user_contains: "SUB-CLAUDE"}
    respond: {delay_ms: 2000, text: "done CLAUDE"}
  - name: sub-codex
    match: {last_user_contains: "SUB-CODEX"}
    respond: {delay_ms: 2000, text: "done CODEX"}
  - name: sub-native
    match: {last_user_contains: "SUB-NATIVE"}
    respond: {delay_ms: 2000, text: "done NATIVE"}
  - name: lead-spawn
    match: {last_user_contains: "MIXED", has_tool_results: false}
    respond:
      tool_calls:
        - {name: task, input: {description: "claude part", prompt: "SUB-CLAUDE: report that you are done. Use no tools.", subagent_type: claude-worker}}
        - {name: task, input: {description: "codex part", prompt: "SUB-CODEX: report that you are done. Use no tools.", subagent_type: codex-worker}}
        - {name: task, input: {description: "opencode part", prompt: "SUB-OPENCODE: report that you are done. Use no tools.", subagent_type: opencode-worker}}
        - {name: task, input: {description: "native part", prompt: "SUB-NATIVE: report that you are done.", subagent_type: native-worker}}
  - name: other
    respond: {text: "OK."}
`

// mixedBackground: the native lead starts a Codex sub-agent in the
// background and ends its turn; the sub-agent's answer wakes it.
const mixedBackground = `
rules:
  - name: lead-woken
    match: {any_user_contains: "done BG-CODEX", api: anthropic}
    respond: {text: "The background worker reported: done BG-CODEX."}
  - name: sub-codex
    match: {last_user_contains: "SUB-BG"}
    respond: {delay_ms: 1500, text: "done BG-CODEX"}
  - name: lead-ack
    match: {last_user_contains: "MIXED-BG", has_tool_results: true}
    respond: {text: "Started it in the background."}
  - name: lead-spawn
    match: {last_user_contains: "MIXED-BG", has_tool_results: false}
    respond:
      tool_calls:
        - {name: task, input: {description: "codex in background", prompt: "SUB-BG: report that you are done. Use no tools.", subagent_type: codex-worker, mode: background}}
  - name: other
    respond: {text: "OK."}
`

// mixedRun runs `atomic run` with a native lead on the loopback's
// Anthropic API and the agent files above; the CLIs are on PATH and take
// the OpenAI settings from the environment, Claude Code the lead's.
func mixedRun(t *testing.T, scenario, prompt string) (result, []event.Raw) {
	r, evs, _ := mixedRunIn(t, scenario, prompt)
	return r, evs
}

// mixedRunIn is mixedRun that also returns the run's home (every process
// of the run carries it in its environment).
func mixedRunIn(t *testing.T, scenario, prompt string, args ...string) (result, []event.Raw, string) {
	t.Helper()
	srv := server(t, scenario)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd, home := mixedCommand(t, ctx, srv.URL(), prompt, args...)
	r := runCmd(t, cmd)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	return r, checkMixedStream(t, r.stdout), home
}

// mixedCommand is `atomic run` with a native lead on the loopback's
// Anthropic API at baseURL, in a workspace with the agent files above; the
// CLIs are on PATH and take the OpenAI settings from the environment,
// Claude Code the lead's. args are more flags.
func mixedCommand(t *testing.T, ctx context.Context, baseURL, prompt string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	claude, codex, opencode := testkit.ClaudeCLI(t), testkit.CodexCLI(t), testkit.OpenCodeCLI(t)
	home, dir := t.TempDir(), t.TempDir()
	agents := filepath.Join(dir, ".atomic", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range mixedAgents {
		if err := os.WriteFile(filepath.Join(agents, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(ctx, binary, append([]string{"run", "--provider", "anthropic", "--base-url", baseURL,
		"--model", "claude-test-model", "--permission-mode", "bypassPermissions", "-p", prompt, "--output-format", "stream-json"}, args...)...)
	cmd.Dir = dir
	path := strings.Join([]string{filepath.Dir(claude), filepath.Dir(codex), filepath.Dir(opencode), os.Getenv("PATH")}, string(os.PathListSeparator))
	cmd.Env = []string{"PATH=" + path, "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "TMPDIR=" + home,
		"XDG_DATA_HOME=" + filepath.Join(home, ".local/share"), "XDG_STATE_HOME=" + filepath.Join(home, ".local/state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"), "ANTHROPIC_API_KEY=test-key",
		"OPENAI_BASE_URL=" + baseURL + "/v1", "OPENAI_API_KEY=test-key",
		"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "NO_COLOR=1", "LANG=C.UTF-8"}
	return cmd, home
}

// checkMixedStream parses a mixed run's stream-json and checks the rules
// every run obeys: complete last and once; turn.end the lead's alone.
func checkMixedStream(t *testing.T, out string) []event.Raw {
	t.Helper()
	evs := events(t, out)
	checkCompleteOnceAndLast(t, evs)
	for _, e := range evs {
		// turn.end is the lead's alone (SPEC §1): a sub-agent's CLI ending
		// its own turn is not the user's turn to type.
		if e.Type == event.TurnEnd && e.AgentID != "lead" {
			t.Errorf("turn.end from %s: only the lead ends turns", e.AgentID)
		}
	}
	return evs
}

// processesOf lists the live processes whose environment holds HOME=home:
// after the run has exited, whatever of it is left behind.
func processesOf(home string) []string {
	want := []byte("HOME=" + home + "\x00")
	var found []string
	dir, _ := os.ReadDir("/proc")
	for _, d := range dir {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() || !alive(pid) {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		found = append(found, d.Name()+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return found
}

func TestMixedTreeNativeLeadFansOutToClaudeCodeCodexOpenCodeAndNativeSubagentsThatOverlap(t *testing.T) {
	r, evs := mixedRun(t, mixedFanOut, "MIXED: hand the four parts to the four workers at once.")
	var st lifecycle.State
	backends := map[string]string{} // agent id → backend
	firstEnd := -1
	lastStart := -1
	for i, e := range evs {
		st.Apply(e.Event())
		switch e.Type {
		case event.SubagentStart:
			d, _ := event.Payload[event.SubagentStartData](e.Event().Data)
			if e.ParentAgentID == "lead" {
				backends[e.AgentID] = d.Backend
				lastStart = i
			}
		case event.SubagentComplete:
			if e.ParentAgentID == "lead" && firstEnd < 0 {
				firstEnd = i
			}
		}
	}
	want := map[string]string{"claude-worker-1": "claude-code", "codex-worker-1": "codex", "opencode-worker-1": "opencode", "native-worker-1": "native"}
	for id, b := range want {
		if backends[id] != b {
			t.Errorf("sub-agent %s: backend %q, want %q (all: %v)", id, backends[id], b, backends)
		}
		rec, ok := st.Get(id)
		if !ok || rec.Status != lifecycle.Completed {
			t.Errorf("sub-agent %s: %+v, want completed", id, rec)
		}
	}
	if lastStart > firstEnd {
		t.Errorf("a sub-agent started (event %d) after another ended (event %d): they did not overlap", lastStart, firstEnd)
	}
	// Each CLI's own session reports under its sub-agent's id: its answer
	// is that agent's message, not the lead's.
	for id, text := range map[string]string{"claude-worker-1": "done CLAUDE", "codex-worker-1": "done CODEX", "opencode-worker-1": "done OPENCODE"} {
		found := false
		for _, e := range evs {
			if e.AgentID == id && e.Type == event.MessageComplete && strings.Contains(string(e.Data), text) {
				found = true
			}
		}
		if !found {
			t.Errorf("no message.complete %q from %s", text, id)
		}
	}
	// Each ran for its own model's 2 s answer, and all four were at work
	// at once: the last start came before the first end (in time too, not
	// only in the stream's order).
	starts, ends := map[string]time.Time{}, map[string]time.Time{}
	for _, e := range evs {
		if _, ok := want[e.AgentID]; ok {
			switch e.Type {
			case event.SubagentStart:
				starts[e.AgentID] = e.Event().Time
			case event.SubagentComplete:
				ends[e.AgentID] = e.Event().Time
			}
		}
	}
	var lastStartAt, firstEndAt time.Time
	for id := range want {
		if d := ends[id].Sub(starts[id]); d < 2*time.Second {
			t.Errorf("%s ran %v, less than its model's 2 s answer", id, d)
		}
		if starts[id].After(lastStartAt) {
			lastStartAt = starts[id]
		}
		if firstEndAt.IsZero() || ends[id].Before(firstEndAt) {
			firstEndAt = ends[id]
		}
	}
	if !lastStartAt.Before(firstEndAt) {
		t.Errorf("the last sub-agent started at %v, after the first ended at %v", lastStartAt, firstEndAt)
	}
	t.Logf("four sub-agents on four backends: whole run %v", r.elapsed)
	if !strings.Contains(r.stdout, "All four are done.") {
		t.Errorf("the lead's final answer is missing")
	}
}

func TestMixedTreeBackgroundCodexSubagentWakesTheNativeLeadWithItsResult(t *testing.T) {
	_, evs := mixedRun(t, mixedBackground, "MIXED-BG: start the codex worker in the background.")
	var st lifecycle.State
	woken := false
	for _, e := range evs {
		st.Apply(e.Event())
		if rec, ok := st.Get("codex-worker-1"); ok && e.Type == event.TurnEnd && e.AgentID == "lead" && !woken {
			// The lead's first turn ends with the sub-agent still at work.
			if rec.Status != lifecycle.Background {
				t.Errorf("at the lead's first turn.end the background sub-agent is %s, want background", rec.Status)
			}
			woken = true
		}
	}
	rec, ok := st.Get("codex-worker-1")
	if !ok || rec.Status != lifecycle.Completed || !strings.Contains(rec.Result, "done BG-CODEX") {
		t.Fatalf("codex-worker-1 = %+v, want completed with its answer", rec)
	}
	last := evs[len(evs)-1]
	if !strings.Contains(string(last.Data), "The background worker reported") {
		t.Errorf("complete does not carry the lead's answer to the wake-up: %s", last.Data)
	}
}

// mixedTeam: the native lead makes a team and spawns a teammate whose type
// runs in Claude Code; the teammate's answer reaches the lead as its
// message, and the lead shuts it down.
const mixedTeam = `
rules:
  - name: lead-final
    match: {system_contains: "You are Atomic", tool_results_contain_all: ["Shutdown requested"]}
    respond: {text: "all done"}
  - name: lead-shutdown
    match: {system_contains: "You are Atomic", any_user_contains: "done TEAM-CLAUDE", has_tool_results: false}
    respond: {tool_calls: [{name: shutdown_request, input: {to: cc}}]}
  - name: lead-start
    match: {system_contains: "You are Atomic", has_tool_results: false, last_user_contains: "MIXED-TEAM"}
    respond: {tool_calls: [{name: team_create, input: {name: crew}}]}
  - name: lead-spawn
    match: {system_contains: "You are Atomic", tool_result_contains: "crew"}
    respond: {tool_calls: [{name: team_spawn, input: {name: cc, role: reviewer, prompt: "TEAM-CLAUDE: report that you are done. Use no tools.", subagent_type: claude-worker}}]}
  - {name: lead-note, match: {system_contains: "You are Atomic"}, respond: {text: "noted"}}
  - name: mate-claude
    match: {last_user_contains: "TEAM-CLAUDE"}
    respond: {delay_ms: 500, text: "done TEAM-CLAUDE"}
  - name: other
    respond: {text: "OK."}
`

func TestMixedTreeTeammateInClaudeCodeReportsToTheNativeLeadAndEndsWithItsProcess(t *testing.T) {
	_, evs, home := mixedRunIn(t, mixedTeam, "MIXED-TEAM: make a team with a Claude Code reviewer.", "--teams")
	var statuses []string
	var message, cliEvents bool
	for _, e := range evs {
		switch {
		case e.Type == event.TeammateStatus:
			d, _ := event.Payload[event.TeammateStatusData](e.Event().Data)
			if d.Name == "cc" {
				statuses = append(statuses, d.Status)
			}
		case e.Type == event.TeamMessage:
			d, _ := event.Payload[event.TeamMessageData](e.Event().Data)
			if d.From == "cc" && d.To == "lead" && strings.Contains(d.Content, "done TEAM-CLAUDE") {
				message = true
			}
		case e.AgentID == "team/cc" && e.Type == event.MessageComplete:
			cliEvents = true // the CLI's own answer, under the teammate's id
		}
	}
	if !message {
		t.Error("the Claude Code teammate's answer never reached the lead as its team.message")
	}
	if !cliEvents {
		t.Error("no message.complete of team/cc: the CLI session's events are not the teammate's")
	}
	if len(statuses) == 0 || statuses[0] != "spawning" || statuses[len(statuses)-1] != "shutdown" {
		t.Errorf("teammate statuses %v, want spawning first and shutdown last", statuses)
	}
	if left := claudeProcesses(filepath.Join(home, ".claude")); len(left) > 0 {
		t.Errorf("Claude Code processes left after the run: %v", left)
	}
}

func TestMixedTreeSIGINTInterruptsEverySubagentOnEveryBackendAndLeavesNoProcess(t *testing.T) {
	srv := server(t, strings.ReplaceAll(mixedFanOut, "delay_ms: 2000", "delay_ms: 60000"))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd, home := mixedCommand(t, ctx, srv.URL(), "MIXED: hand the four parts to the four workers at once.")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// All four are at work once their model requests are in flight.
	deadline := time.Now().Add(90 * time.Second)
	for inFlightSubagents(srv.Log()) < 4 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the four sub-agents never all asked their model; stderr %q", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(processesOf(home)) < 4 {
		t.Fatalf("found %d processes of the run while it works: the scan is broken", len(processesOf(home)))
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130; stderr %q", err, errb.String())
	}
	evs := checkMixedStream(t, out.String())
	var st lifecycle.State
	for _, e := range evs {
		st.Apply(e.Event())
	}
	for _, id := range []string{"claude-worker-1", "codex-worker-1", "opencode-worker-1", "native-worker-1"} {
		if rec, ok := st.Get(id); !ok || rec.Status != lifecycle.Interrupted {
			t.Errorf("%s = %+v, want interrupted", id, rec)
		}
	}
	if left := processesOf(home); len(left) > 0 {
		t.Errorf("processes left after the run: %v", left)
	}
}

// mixedCancel: the native lead starts a slow Codex sub-agent in the
// background, then cancels it with cancel_task.
const mixedCancel = `
rules:
  - name: lead-final
    match: {last_user_contains: "MIXED-CANCEL", tool_result_contains: "cancel"}
    respond: {text: "Cancelled it."}
  - name: lead-cancel
    match: {last_user_contains: "MIXED-CANCEL", has_tool_results: true}
    respond: {delay_ms: 4000, tool_calls: [{name: cancel_task, input: {task_id: codex-worker-1}}]}
  - name: lead-spawn
    match: {last_user_contains: "MIXED-CANCEL", has_tool_results: false}
    respond:
      tool_calls:
        - {name: task, input: {description: "slow codex work", prompt: "SUB-SLOW: take your time.", subagent_type: codex-worker, mode: background}}
  - name: sub-slow
    match: {last_user_contains: "SUB-SLOW"}
    respond: {delay_ms: 60000, text: "too late"}
  - name: other
    respond: {text: "OK."}
`

func TestMixedTreeCancelTaskStopsACodexSubagentAndItsProcess(t *testing.T) {
	r, evs, home := mixedRunIn(t, mixedCancel, "MIXED-CANCEL: start the slow codex worker, then cancel it.")
	var st lifecycle.State
	cliUp := false
	for _, e := range evs {
		st.Apply(e.Event())
		if e.Type == event.SessionStart && e.AgentID == "codex-worker-1" {
			cliUp = true // Codex's thread started: the CLI was at work
		}
	}
	if !cliUp {
		t.Fatal("codex-worker-1's CLI session never started: the cancel proved nothing")
	}
	if rec, ok := st.Get("codex-worker-1"); !ok || rec.Status != lifecycle.Interrupted {
		t.Fatalf("codex-worker-1 = %+v, want interrupted by cancel_task", rec)
	}
	if r.elapsed > 50*time.Second {
		t.Errorf("the run took %v: it waited for the cancelled sub-agent's answer", r.elapsed)
	}
	if left := processesOf(home); len(left) > 0 {
		t.Errorf("processes left after the run: %v", left)
	}
}
