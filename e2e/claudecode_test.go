//go:build unix

package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/backend/claudecode"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// claudeBin is the Claude Code CLI the tests drive.
func claudeBin(t testing.TB) string { return testkit.ClaudeCLI(t) }

// recorder keeps the events of a session and the lifecycle state they
// make, as the runtime's reducer would.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
	state  lifecycle.State
}

func (r *recorder) Emit(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	r.state.Apply(e)
}

func (r *recorder) record(id string) (lifecycle.Record, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state.Get(id)
}

func (r *recorder) snapshot() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event(nil), r.events...)
}

// claudeSession starts a claudecode.Session against a loopback server
// scripted by scenario, with a throwaway home and no traffic but to the
// loopback server.
func claudeSession(t *testing.T, scenario string, gate *permission.Gate) (*claudecode.Session, *recorder, string) {
	t.Helper()
	bin := claudeBin(t)
	srv := server(t, scenario)
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude"), "TMPDIR": home,
		"DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1", "DISABLE_AUTOUPDATER": "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	} {
		t.Setenv(k, v)
	}
	ws := t.TempDir()
	rec := &recorder{}
	s, err := claudecode.New(backend.Config{
		SessionID: "s1", AgentID: "lead", Workspace: ws, Bin: bin,
		Model: "claude-test-model", BaseURL: srv.URL(), APIKey: "test-key",
		Gate: gate, Sink: rec,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, rec, ws
}

func runCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Sub-agents answer only their own prompt; the lead's rules follow. The
// catch-all answers whatever else the CLI asks the model.
const claudeFanOut = `
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
    match: {last_user_contains: "FANOUT", tools_include: [Agent]}
    respond:
      tool_calls:
        - {name: Agent, input: {description: "Subtask alpha", prompt: "SUBTASK-ALPHA: report that you are finished. Use no tools.", subagent_type: general-purpose, run_in_background: false}}
        - {name: Agent, input: {description: "Subtask beta", prompt: "SUBTASK-BETA: report that you are finished. Use no tools.", subagent_type: general-purpose, run_in_background: false}}
        - {name: Agent, input: {description: "Subtask gamma", prompt: "SUBTASK-GAMMA: report that you are finished. Use no tools.", subagent_type: general-purpose, run_in_background: false}}
  - name: other
    respond: {text: "OK."}
`

func TestClaudeCodeThreeParallelSubagentsOverlap(t *testing.T) {
	s, rec, _ := claudeSession(t, claudeFanOut, nil)
	res, err := s.Run(runCtx(t), "FANOUT: start three sub-agents in parallel.")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "All three are done." {
		t.Errorf("result = %q", res.Text)
	}
	starts, ends := map[string]int{}, map[string]int{}
	for i, e := range rec.snapshot() {
		switch e.Type {
		case event.SubagentStart:
			starts[e.AgentID] = i
		case event.SubagentComplete:
			ends[e.AgentID] = i
		}
	}
	ids := []string{"general-purpose-1", "general-purpose-2", "general-purpose-3"}
	lastStart, firstEnd := -1, 1<<30
	for _, id := range ids {
		st, ok1 := starts[id]
		en, ok2 := ends[id]
		if !ok1 || !ok2 {
			t.Fatalf("%s: start seen %v, complete seen %v", id, ok1, ok2)
		}
		lastStart, firstEnd = max(lastStart, st), min(firstEnd, en)
		r, _ := rec.record(id)
		if r.Status != lifecycle.Completed || !strings.HasPrefix(r.Result, "done ") {
			t.Errorf("%s = %s %q, want completed with its answer", id, r.Status, r.Result)
		}
	}
	if lastStart > firstEnd {
		t.Errorf("a sub-agent completed (event %d) before the last one started (event %d): they did not overlap", firstEnd, lastStart)
	}
}

const claudeBackground = `
rules:
  - name: sub-delta
    match: {last_user_contains: "SUBTASK-DELTA"}
    respond: {delay_ms: 2000, text: "done DELTA"}
  - name: lead-woken
    match: {any_user_contains: "done DELTA", tools_include: [Agent]}
    respond: {text: "DELTA finished (BG done)."}
  - name: lead-ack
    match: {last_user_contains: "BGRUN", has_tool_results: true}
    respond: {text: "It runs in the background."}
  - name: lead-spawn
    match: {last_user_contains: "BGRUN", tools_include: [Agent]}
    respond:
      tool_calls:
        - {name: Agent, input: {description: "Background delta", prompt: "SUBTASK-DELTA: report that you are finished. Use no tools.", subagent_type: general-purpose, run_in_background: true}}
  - name: other
    respond: {text: "OK."}
`

func TestClaudeCodeBackgroundSubagentStaysBackgroundUntilItsAnswerAndWakesTheLead(t *testing.T) {
	s, rec, _ := claudeSession(t, claudeBackground, nil)
	ctx := runCtx(t)
	res, err := s.Run(ctx, "BGRUN: start one background sub-agent.")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "It runs in the background." {
		t.Errorf("first turn = %q, want the ack turn", res.Text)
	}
	r, ok := rec.record("general-purpose-1")
	if !ok || r.Status != lifecycle.Background || !r.Background {
		t.Fatalf("after the ack turn the record is %+v, want background", r)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !s.Pending() {
		if time.Now().After(deadline) {
			t.Fatal("the session never became pending for the wake-up turn")
		}
		time.Sleep(10 * time.Millisecond)
	}
	res, err = s.Run(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "DELTA finished (BG done)." {
		t.Errorf("wake-up turn = %q", res.Text)
	}
	r, _ = rec.record("general-purpose-1")
	if r.Status != lifecycle.Completed || r.Result != "done DELTA" {
		t.Errorf("after the wake-up the record is %s %q, want completed with its answer", r.Status, r.Result)
	}
	if s.Pending() {
		t.Error("still pending after the wake-up turn")
	}
}

const claudeSlow = `
rules:
  - name: sub-slow
    match: {last_user_contains: "SUBTASK-SLOW"}
    respond: {delay_ms: 60000, text: "done SLOW"}
  - name: lead-spawn
    match: {last_user_contains: "SLOWRUN", tools_include: [Agent], has_tool_results: false}
    respond:
      tool_calls:
        - {name: Agent, input: {description: "Slow task", prompt: "SUBTASK-SLOW: report when finished. Use no tools.", subagent_type: general-purpose, run_in_background: false}}
  - name: other
    respond: {text: "OK."}
`

func TestClaudeCodeInterruptStopsTheSubagentAndCloseLeavesNoProcess(t *testing.T) {
	s, rec, _ := claudeSession(t, claudeSlow, nil)
	pgid := s.PID()
	ctx, cancel := context.WithCancel(runCtx(t))
	go func() {
		for {
			if r, ok := rec.record("general-purpose-1"); ok && r.Session == lifecycle.SessionOpen {
				time.Sleep(300 * time.Millisecond)
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	_, err := s.Run(ctx, "SLOWRUN: start one slow sub-agent.")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want an error wrapping context.Canceled", err)
	}
	r, _ := rec.record("general-purpose-1")
	if r.Status != lifecycle.Interrupted || r.Session != lifecycle.SessionClosed {
		t.Errorf("record = %s (session %s), want interrupted and closed by its notification", r.Status, r.Session)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d still exists after Close (kill 0: %v)", pgid, err)
	}
}

const claudePerm = `
rules:
  - name: sub-final
    match: {last_user_contains: "SUBTASK-PERM", has_tool_results: true}
    respond: {text: "done PERM"}
  - name: sub-bash
    match: {last_user_contains: "SUBTASK-PERM"}
    respond:
      tool_calls:
        - {name: Bash, input: {command: "echo hi > perm.txt", description: "Write perm.txt"}}
  - name: lead-final
    match: {last_user_contains: "PERMRUN", has_tool_results: true}
    respond: {text: "The sub-agent is done."}
  - name: lead-spawn
    match: {last_user_contains: "PERMRUN", tools_include: [Agent]}
    respond:
      tool_calls:
        - {name: Agent, input: {description: "Write a file", prompt: "SUBTASK-PERM: run echo hi > perm.txt with Bash.", subagent_type: general-purpose, run_in_background: false}}
  - name: other
    respond: {text: "OK."}
`

func TestClaudeCodeSubagentApprovalIsDeniedHeadlessWithTheReason(t *testing.T) {
	gate, err := permission.NewGate(permission.Options{Mode: permission.Default})
	if err != nil {
		t.Fatal(err)
	}
	s, rec, ws := claudeSession(t, claudePerm, gate)
	if _, err := s.Run(runCtx(t), "PERMRUN: start a sub-agent that writes a file."); err != nil {
		t.Fatal(err)
	}
	var requested, resolved []event.Event
	for _, e := range rec.snapshot() {
		switch e.Type {
		case event.PermissionRequested:
			requested = append(requested, e)
		case event.PermissionResolved:
			resolved = append(resolved, e)
		}
	}
	if len(requested) != 1 || len(resolved) != 1 {
		t.Fatalf("%d requested, %d resolved, want one each", len(requested), len(resolved))
	}
	req := requested[0].Data.(event.PermissionRequestedData)
	if requested[0].AgentID != "general-purpose-1" || req.Tool != "bash" || req.Subject != "echo hi > perm.txt" {
		t.Errorf("requested by %s: %+v, want general-purpose-1 asking for bash", requested[0].AgentID, req)
	}
	d := resolved[0].Data.(event.PermissionResolvedData)
	if d.Allowed || !strings.Contains(d.Reason, "--allowed-tools") {
		t.Errorf("resolved = %+v, want denied naming --allowed-tools", d)
	}
	if _, err := os.Stat(filepath.Join(ws, "perm.txt")); !os.IsNotExist(err) {
		t.Errorf("perm.txt exists (stat: %v): the denied command ran", err)
	}
	r, _ := rec.record("general-purpose-1")
	if r.Status != lifecycle.Completed {
		t.Errorf("sub-agent = %s, want completed (it reports the denial)", r.Status)
	}
}

const claudeStreamed = `
rules:
  - name: lead-answer
    match: {last_user_contains: "STREAMTEXT"}
    respond: {text: "This answer is long enough to arrive in several pieces."}
  - name: other
    respond: {text: "OK."}
`

func TestClaudeCodeLeadAnswerStreamsInPiecesAndItsTextArrivesOnce(t *testing.T) {
	s, rec, _ := claudeSession(t, claudeStreamed, nil)
	res, err := s.Run(runCtx(t), "STREAMTEXT: answer.")
	if err != nil {
		t.Fatal(err)
	}
	const want = "This answer is long enough to arrive in several pieces."
	if res.Text != want {
		t.Errorf("result = %q, want %q", res.Text, want)
	}
	var streamed strings.Builder
	deltas, completes := 0, []string{}
	for _, e := range rec.snapshot() {
		if e.AgentID != "lead" {
			continue
		}
		switch d := e.Data.(type) {
		case event.MessageDeltaData:
			if d.Discard {
				streamed.Reset()
			}
			if d.Text != "" {
				deltas++
				streamed.WriteString(d.Text)
			}
		case event.MessageCompleteData:
			completes = append(completes, d.Text)
		}
	}
	if deltas < 2 {
		t.Errorf("the answer came in %d delta(s), want it streamed in pieces", deltas)
	}
	if streamed.String() != want || len(completes) != 1 || completes[0] != want {
		t.Errorf("deltas spelled %q and message.complete carried %q, want %q once", streamed.String(), completes, want)
	}
}
