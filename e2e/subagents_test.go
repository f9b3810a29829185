package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
)

// statusesByAgent collects the agent.status sequence of every agent.
func statusesByAgent(t *testing.T, evs []event.Raw) map[string][]lifecycle.Status {
	out := map[string][]lifecycle.Status{}
	for _, e := range evs {
		if e.Type == event.AgentStatus {
			d := data[lifecycle.StatusData](t, e)
			out[d.Agent.ToolCallID] = append(out[d.Agent.ToolCallID], d.Status)
		}
	}
	return out
}

func index(evs []event.Raw, pred func(event.Raw) bool) int {
	for i, e := range evs {
		if pred(e) {
			return i
		}
	}
	return -1
}

// threeExploreAgents: the lead fans out to three explore agents, each
// answering after 700 ms (rules sub-a, sub-b, sub-c), then sums up.
const threeExploreAgents = `
rules:
  - name: lead-final
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond: {text: "All three reported."}
  - name: lead-fanout
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "Find auth code", prompt: "TASK-A find the auth code", subagent_type: explore}}
        - {name: task, input: {description: "Find db code", prompt: "TASK-B find the db code", subagent_type: explore}}
        - {name: task, input: {description: "Find ui code", prompt: "TASK-C find the ui code", subagent_type: explore}}
  - {name: sub-a, match: {system_contains: "You are a sub-agent", first_user_contains: TASK-A}, respond: {text: "auth is in auth.go", delay_ms: 700}}
  - {name: sub-b, match: {system_contains: "You are a sub-agent", first_user_contains: TASK-B}, respond: {text: "db is in db.go", delay_ms: 700}}
  - {name: sub-c, match: {system_contains: "You are a sub-agent", first_user_contains: TASK-C}, respond: {text: "ui is in ui.go", delay_ms: 700}}
`

// backgroundAnalysis: the lead spawns one background agent (rule sub,
// answering "background result 42" after 2 s) and answers when woken.
const backgroundAnalysis = `
rules:
  - name: lead-notified
    match: {system_contains: "You are Atomic", last_user_contains: "background result 42"}
    respond: {text: "The background task said 42."}
  - name: lead-ack
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond: {text: "Spawned it; carrying on."}
  - name: lead-spawn
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "Slow analysis", prompt: "BG-TASK analyse slowly", mode: background}}
  - name: sub
    match: {system_contains: "You are a sub-agent"}
    respond: {text: "background result 42", delay_ms: 2000}
`

func TestThreeSyncTasksRunInParallelAndAllResultsGoBack(t *testing.T) {
	srv := server(t, threeExploreAgents)
	r := atomic(t, srv, "anthropic", t.TempDir(), "-p", "survey", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	var subs []loopback.LogEntry
	for _, e := range srv.Log() {
		if strings.HasPrefix(e.Rule, "sub-") {
			subs = append(subs, e)
		}
	}
	if len(subs) != 3 || loopback.MaxConcurrent(subs) != 3 {
		t.Fatalf("the three sub-agent requests must overlap: %d requests, %d at once", len(subs), loopback.MaxConcurrent(subs))
	}
	final := loopback.ByRule(srv.Log(), "lead-final")
	if len(final) != 1 {
		t.Fatalf("lead-final requests: %d", len(final))
	}
	res := final[0].LastToolResults()
	want := []string{"auth is in auth.go", "db is in db.go", "ui is in ui.go"}
	if len(res) != 3 {
		t.Fatalf("lead's next request carries %d results, want 3", len(res))
	}
	for i, w := range want {
		if res[i].Content != w {
			t.Errorf("result %d = %q, want %q", i, res[i].Content, w)
		}
	}
	// Each sub-agent saw only its own task: an independent context window.
	for _, s := range subs {
		if len(s.Messages) != 1 || strings.Contains(s.Messages[0].Text, "survey") {
			t.Errorf("sub-agent request carries more than its task: %+v", s.Messages)
		}
	}
	// Each of the three agents was running from its first status and then
	// completed, and there were no others.
	seqs := statusesByAgent(t, events(t, r.stdout))
	if len(seqs) != 3 {
		t.Fatalf("agent.status events name %d agents (%v), want the 3 sub-agents", len(seqs), seqs)
	}
	for id, seq := range seqs {
		if len(seq) != 2 || seq[0] != lifecycle.Running || seq[1] != lifecycle.Completed {
			t.Errorf("agent %s went through %v, want [running completed]", id, seq)
		}
	}
}

func TestBackgroundTaskStaysBackgroundUntilItReallyEndsAndTheRunWaitsForIt(t *testing.T) {
	srv := server(t, backgroundAnalysis)
	r := atomic(t, srv, "anthropic", t.TempDir(), "-p", "go", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	if r.elapsed < 2*time.Second {
		t.Fatalf("the run ended after %s, before the 2 s background task", r.elapsed)
	}
	evs := events(t, r.stdout)
	seqs := statusesByAgent(t, evs)
	if len(seqs) != 1 {
		t.Fatalf("want one agent, got %v", seqs)
	}
	for _, seq := range seqs {
		if len(seq) != 2 || seq[0] != lifecycle.Background || seq[1] != lifecycle.Completed {
			t.Fatalf("status sequence %v, want [background completed]", seq)
		}
	}
	firstTurnEnd := index(evs, func(e event.Raw) bool { return e.Type == event.TurnEnd })
	subDone := index(evs, func(e event.Raw) bool { return e.Type == event.SubagentComplete })
	completed := index(evs, func(e event.Raw) bool {
		return e.Type == event.AgentStatus && data[lifecycle.StatusData](t, e).Status == lifecycle.Completed
	})
	complete := index(evs, func(e event.Raw) bool { return e.Type == event.Complete })
	if !(firstTurnEnd < subDone && subDone < completed && completed < complete) {
		t.Fatalf("order: first turn.end %d, subagent.complete %d, completed status %d, complete %d", firstTurnEnd, subDone, completed, complete)
	}
	if complete != len(evs)-1 {
		t.Fatalf("complete must be the last event")
	}
	// Between the lead's first turn and the end, it reported usage instead of complete.
	usage := index(evs[firstTurnEnd:], func(e event.Raw) bool {
		return e.Type == event.UsageUpdate && e.AgentID == "lead" && data[event.UsageUpdateData](t, e).Active == 1
	})
	if usage < 0 {
		t.Fatal("no gated usage.update while the background task ran")
	}
	if got := data[event.CompleteData](t, evs[complete]).Result; got != "The background task said 42." {
		t.Fatalf("final result %q: the lead must have seen the background result", got)
	}
	if len(loopback.ByRule(srv.Log(), "lead-notified")) != 1 {
		t.Fatal("the lead was not woken with the background result")
	}
}

func TestCapTwoRunsFiveTasksAtMostTwoAtATimeInFIFOOrder(t *testing.T) {
	srv := server(t, `
rules:
  - name: lead-final
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond: {text: "done"}
  - name: lead-fanout
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "one", prompt: "TASK-1"}}
        - {name: task, input: {description: "two", prompt: "TASK-2"}}
        - {name: task, input: {description: "three", prompt: "TASK-3"}}
        - {name: task, input: {description: "four", prompt: "TASK-4"}}
        - {name: task, input: {description: "five", prompt: "TASK-5"}}
  # Staggered answers make each queued grant at least 100 ms apart:
  # 1 [0,100] 2 [0,400] 3 [100,250] 4 [250,350] 5 [400,500].
  - {name: sub, match: {first_user_contains: TASK-1}, respond: {text: "ok", delay_ms: 100}}
  - {name: sub, match: {first_user_contains: TASK-2}, respond: {text: "ok", delay_ms: 400}}
  - {name: sub, match: {first_user_contains: TASK-3}, respond: {text: "ok", delay_ms: 150}}
  - {name: sub, match: {system_contains: "You are a sub-agent"}, respond: {text: "ok", delay_ms: 100}}
`)
	r := atomic(t, srv, "anthropic", t.TempDir(), "-p", "go", "--max-subagents", "2", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	subs := loopback.ByRule(srv.Log(), "sub")
	if len(subs) != 5 {
		t.Fatalf("%d sub-agent requests", len(subs))
	}
	if n := loopback.MaxConcurrent(subs); n != 2 {
		t.Fatalf("%d sub-agent requests in flight at once, want exactly 2", n)
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].Start.Before(subs[j].Start) })
	var order []string
	for _, s := range subs {
		order = append(order, s.Messages[0].Text)
	}
	// 1 and 2 start together (their order on the wire is noise); the queued
	// ones start strictly in the order they were spawned.
	first := []string{order[0], order[1]}
	sort.Strings(first)
	if first[0] != "TASK-1" || first[1] != "TASK-2" || order[2] != "TASK-3" || order[3] != "TASK-4" || order[4] != "TASK-5" {
		t.Fatalf("start order %v, want TASK-1/TASK-2 then TASK-3, TASK-4, TASK-5 (FIFO)", order)
	}
	// The two that got slots were never pending; the three queued ones were
	// pending from their first status on, never running while they waited.
	var shapes []string
	for _, seq := range statusesByAgent(t, events(t, r.stdout)) {
		var s []string
		for _, st := range seq {
			s = append(s, string(st))
		}
		shapes = append(shapes, strings.Join(s, ">"))
	}
	sort.Strings(shapes)
	want := []string{"pending>running>completed", "pending>running>completed", "pending>running>completed", "running>completed", "running>completed"}
	if strings.Join(shapes, " ") != strings.Join(want, " ") {
		t.Fatalf("status sequences %v, want %v", shapes, want)
	}
}

func TestOneFailingSubagentDoesNotTouchItsSiblings(t *testing.T) {
	srv := server(t, `
rules:
  - name: lead-final
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond: {text: "two of three worked"}
  - name: lead-fanout
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "first", prompt: "TASK-A"}}
        - {name: task, input: {description: "broken", prompt: "TASK-B"}}
        - {name: task, input: {description: "third", prompt: "TASK-C"}}
  - {name: sub-b, match: {system_contains: "You are a sub-agent", first_user_contains: TASK-B}, respond: {error: {status: 500, type: api_error, message: "boom"}}}
  - {name: sub, match: {system_contains: "You are a sub-agent"}, respond: {text: "fine", delay_ms: 300}}
`)
	r := atomic(t, srv, "anthropic", t.TempDir(), "-p", "go", "--output-format", "json")
	if r.code != 0 {
		t.Fatalf("sub-agent failures must not fail the run: code %d: %s", r.code, r.stderr)
	}
	var res struct {
		Result string
		Agents []struct {
			ID, Description, Status, Error, Result string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range res.Agents {
		got[a.Description] = a.Status
		if a.Description == "broken" && !strings.Contains(a.Error, "500") {
			t.Errorf("error should carry the cause: %q", a.Error)
		}
	}
	if got["first"] != "completed" || got["third"] != "completed" || got["broken"] != "error" {
		t.Fatalf("statuses %v", got)
	}
	if n := len(loopback.ByRule(srv.Log(), "sub-b")); n != 3 {
		t.Fatalf("the failing agent should have spent its 3 attempts, made %d", n)
	}
	if res.Result != "two of three worked" {
		t.Fatalf("result %q", res.Result)
	}
}

func TestSIGINTWithSyncAndBackgroundAgentsInterruptsAllAndEnds(t *testing.T) {
	srv := server(t, `
rules:
  - name: lead-spawn
    match: {system_contains: "You are Atomic", has_tool_results: false}
    respond:
      tool_calls:
        - {name: task, input: {description: "background work", prompt: "BG", mode: background}}
        - {name: task, input: {description: "sync work", prompt: "SYNC"}}
  - name: lead-after
    match: {system_contains: "You are Atomic"}
    respond: {text: "after"}
  - name: sub
    match: {system_contains: "You are a sub-agent"}
    respond: {text: "slow", delay_ms: 30000}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", t.TempDir(), "-p", "go", "--output-format", "stream-json")
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan event.Raw, 1000)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(lines)
		readEvents(stdout, lines)
	}()
	var evs []event.Raw
	started := 0
	deadline := time.After(20 * time.Second)
	for started < 2 {
		select {
		case e, ok := <-lines:
			if !ok {
				t.Fatalf("atomic ended early: %s", stderr.String())
			}
			evs = append(evs, e)
			if e.Type == event.SessionStart && e.AgentID != "lead" {
				started++
			}
		case <-deadline:
			t.Fatal("sub-agents never started")
		}
	}
	// Both sub-agent sessions exist; give their requests a moment to be in flight.
	waitInFlight(t, srv, 2)
	cmd.Process.Signal(syscall.SIGINT)
	for e := range lines {
		evs = append(evs, e)
	}
	wg.Wait()
	err := cmd.Wait()
	if ee, ok := err.(interface{ ExitCode() int }); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130; stderr %q", err, stderr.String())
	}
	seqs := statusesByAgent(t, evs)
	if len(seqs) != 2 {
		t.Fatalf("agents: %v", seqs)
	}
	for id, seq := range seqs {
		if seq[len(seq)-1] != lifecycle.Interrupted {
			t.Errorf("agent %s ended %v, want interrupted", id, seq)
		}
	}
	last := evs[len(evs)-1]
	if last.Type != event.Complete || !data[event.CompleteData](t, last).IsError {
		t.Fatalf("the run must still end with an error complete, ended with %s", last.Type)
	}
}

func readEvents(r io.Reader, out chan<- event.Raw) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event.Raw
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out <- e
		}
	}
}

// waitInFlight waits until the server has seen n sub-agent requests start.
func waitInFlight(t *testing.T, srv *loopback.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if srv.InFlight() >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("fewer than %d requests in flight", n)
}
