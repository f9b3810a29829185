package copilot

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/github/copilot-sdk/go"
	"github.com/github/copilot-sdk/go/rpc"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// step is one captured message a Session sees: a session.send it made (a
// lead turn begins) or a session event.
type step struct {
	send bool
	ev   sdk.SessionEvent
}

// readHeadless splits the captured `copilot --headless --stdio` exchange
// into its Copilot sessions, in the order they were created: FG3 (three
// sync sub-agents), BG1 (one background), INT (aborted), PERM (approval).
func readHeadless(t testing.TB) [][]step {
	t.Helper()
	var order []string
	steps := map[string][]step{}
	scan(t, "copilot-subagents-headless.jsonl", func(line []byte) {
		var rec struct {
			Dir string `json:"dir"`
			Msg struct {
				Method string `json:"method"`
				Params struct {
					SessionID string          `json:"sessionId"`
					Event     json.RawMessage `json:"event"`
				} `json:"params"`
			} `json:"msg"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		id := rec.Msg.Params.SessionID
		switch {
		case rec.Dir == ">>" && rec.Msg.Method == "session.send":
			steps[id] = append(steps[id], step{send: true})
		case rec.Dir == "<<" && rec.Msg.Method == "session.event":
			if _, seen := steps[id]; !seen {
				order = append(order, id)
			}
			steps[id] = append(steps[id], step{ev: decode(t, rec.Msg.Params.Event)})
		}
	})
	var out [][]step
	for _, id := range order {
		out = append(out, steps[id])
	}
	if len(out) != 4 {
		t.Fatalf("capture has %d sessions, want 4", len(out))
	}
	return out
}

// readPrompt reads a `copilot -p --output-format json` stream: the same
// session events, one per line, after one prompt (a send first). Its last
// line, the run's result, is no session event and is left out.
func readPrompt(t testing.TB, name string) []step {
	t.Helper()
	out := []step{{send: true}}
	scan(t, name, func(line []byte) {
		if strings.HasPrefix(string(line), `{"type":"result"`) {
			return
		}
		out = append(out, step{ev: decode(t, line)})
	})
	return out
}

func scan(t testing.TB, name string, line func([]byte)) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func decode(t testing.TB, raw []byte) sdk.SessionEvent {
	t.Helper()
	var ev sdk.SessionEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("session event %.200s: %v", raw, err)
	}
	return ev
}

// replayed is what feeding a capture to a Translator produced.
type replayed struct {
	events    []event.Event
	state     lifecycle.State
	decisions []rpc.PermissionDecision
	ends      []TurnEnd
	// settledAtEnd says, for each lead turn end, whether the reducer was
	// settled then.
	settledAtEnd []bool
	// before maps each sub-agent to the statuses its record had just
	// before each event naming it was applied.
	before map[string][]lifecycle.Status
	// terminalBy is the event that made each record terminal.
	terminalBy map[string]event.Event
	// wokenAtEnd says, for each background subagent.complete, whether the
	// session was already pending (the lead's wake-up) when it was told.
	wokenAtEnd []bool
}

// replay feeds steps to a Translator the way the Session does: a send
// begins a lead turn, a permission request is decided, every event is
// translated; each §1 event is applied to a lifecycle.State.
func replay(t *testing.T, steps []step, gate *permission.Gate) *replayed {
	t.Helper()
	r := &replayed{before: map[string][]lifecycle.Status{}, terminalBy: map[string]event.Event{}}
	var tr *Translator
	var mu sync.Mutex
	sink := event.SinkFunc(func(e event.Event) {
		mu.Lock()
		defer mu.Unlock()
		r.events = append(r.events, e)
		if rec, ok := r.state.Get(e.AgentID); ok {
			r.before[e.AgentID] = append(r.before[e.AgentID], rec.Status)
			if e.Type == event.SubagentComplete && rec.Background {
				r.wokenAtEnd = append(r.wokenAtEnd, tr.turns.Pending())
			}
		}
		for _, rec := range r.state.Apply(e) {
			if _, seen := r.terminalBy[rec.ID]; !seen && rec.Status.Terminal() {
				r.terminalBy[rec.ID] = e
			}
		}
	})
	tr = NewTranslator(backend.Config{SessionID: "s1", AgentID: "lead", Gate: gate, Sink: sink})
	for _, s := range steps {
		if s.send {
			tr.Begin()
			continue
		}
		if d, ok := s.ev.Data.(*sdk.PermissionRequestedData); ok {
			r.decisions = append(r.decisions, tr.Decide(context.Background(), s.ev, d))
		}
		tr.Handle(s.ev)
		for _, ours := range []bool{true, false} {
			if end, ok := tr.turns.Wait(done(), ours, nil); ok {
				r.ends = append(r.ends, end)
				r.settledAtEnd = append(r.settledAtEnd, r.state.Settled())
			}
		}
	}
	return r
}

// checkIdentity checks SPEC §1's identity (testkit.CheckIdentity) and
// that only a sub-agent's own end or its task call's ended it.
func checkIdentity(t *testing.T, r *replayed, ids []string) {
	t.Helper()
	testkit.CheckIdentity(t, r.events, &r.state, ids)
	for _, rec := range r.state.Records() {
		if !rec.Status.Terminal() {
			continue
		}
		if by := r.terminalBy[rec.ID]; by.Type != event.SubagentComplete && by.Type != event.ToolComplete {
			t.Errorf("%s ended by %s", rec.ID, by.Type)
		}
	}
}

// overlapped reports whether every sub-agent started before any ended.
func overlapped(r *replayed) bool {
	started, ended := 0, false
	for _, e := range r.events {
		switch e.Type {
		case event.SubagentStart:
			if ended {
				return false
			}
			started++
		case event.SubagentComplete:
			ended = true
		}
	}
	return started > 1
}

func TestReplayFanOutYieldsThreeOverlappingSyncSubagentsEachCompletedWithItsOwnAnswer(t *testing.T) {
	for _, c := range []struct {
		name  string
		steps func(testing.TB) []step
	}{
		{"headless", func(t testing.TB) []step { return readHeadless(t)[0] }},
		{"prompt", func(t testing.TB) []step { return readPrompt(t, "copilot-subagents-p-sync.jsonl") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := replay(t, c.steps(t), testkit.AllowAll(t))
			ids := []string{"general-purpose-1", "general-purpose-2", "general-purpose-3"}
			checkIdentity(t, r, ids)
			for i, name := range []string{"alpha", "beta", "gamma"} {
				rec, _ := r.state.Get(ids[i])
				want := "done " + strings.ToUpper(name)
				if rec.Status != lifecycle.Completed || rec.Result != want || rec.Description != "Subtask "+name || rec.Background {
					t.Errorf("%s: %s %q (%q, background %v), want completed %q", ids[i], rec.Status, rec.Result, rec.Description, rec.Background, want)
				}
			}
			if !overlapped(r) {
				t.Error("the three sub-agents did not overlap: one ended before all had started")
			}
			if len(r.ends) != 1 || r.ends[0].Text != "Summary: ALPHA, BETA and GAMMA are all done. (FG done)" || !r.settledAtEnd[0] {
				t.Fatalf("lead turn ends = %+v settled %v, want the summary, settled", r.ends, r.settledAtEnd)
			}
		})
	}
}

func TestReplayBackgroundSubagentStaysBackgroundUntilItsOwnCompletionWhichWakesTheLead(t *testing.T) {
	for _, c := range []struct {
		name  string
		steps func(testing.TB) []step
	}{
		{"headless", func(t testing.TB) []step { return readHeadless(t)[1] }},
		{"prompt", func(t testing.TB) []step { return readPrompt(t, "copilot-subagents-p-background.jsonl") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := replay(t, c.steps(t), testkit.AllowAll(t))
			id := "general-purpose-1"
			checkIdentity(t, r, []string{id})
			for i, st := range r.before[id] {
				if i > 0 && st != lifecycle.Background {
					t.Fatalf("%s was %s before its event %d, want background until its own end", id, st, i)
				}
			}
			if by := r.terminalBy[id]; by.Type != event.SubagentComplete {
				t.Fatalf("%s ended by %s, want its own subagent.complete", id, by.Type)
			}
			if rec, _ := r.state.Get(id); rec.Status != lifecycle.Completed || rec.Result != "done DELTA" || !rec.Background {
				t.Fatalf("%s: %+v, want background completed with \"done DELTA\"", id, rec)
			}
			if len(r.wokenAtEnd) != 1 || !r.wokenAtEnd[0] {
				t.Fatalf("session pending when the background end was told: %v, want true (the CLI wakes its lead)", r.wokenAtEnd)
			}
			if len(r.ends) != 2 || r.settledAtEnd[0] || !r.settledAtEnd[1] {
				t.Fatalf("lead turn ends %+v settled %v, want two: the first unsettled (the agent runs), the woken one settled", r.ends, r.settledAtEnd)
			}
			if r.ends[1].Text != "Background sub-agent DELTA finished. (BG done)" {
				t.Fatalf("woken turn's text %q", r.ends[1].Text)
			}
		})
	}
}

func TestReplayAbortEndsTheSlowSubagentInterruptedAndTheTurnAborted(t *testing.T) {
	r := replay(t, readHeadless(t)[2], testkit.AllowAll(t))
	id := "general-purpose-1"
	checkIdentity(t, r, []string{id})
	rec, _ := r.state.Get(id)
	if rec.Status != lifecycle.Interrupted {
		t.Fatalf("%s is %s, want interrupted", id, rec.Status)
	}
	if by := r.terminalBy[id]; by.Type != event.SubagentComplete {
		t.Fatalf("%s ended by %s, want subagent.complete (cancelled)", id, by.Type)
	}
	if len(r.ends) != 1 || !r.ends[0].Aborted || !r.settledAtEnd[0] {
		t.Fatalf("lead turn ends = %+v settled %v, want one aborted, settled", r.ends, r.settledAtEnd)
	}
}

func TestReplayApprovalIsAskedAsTheSubagentAndApprovedOnce(t *testing.T) {
	r := replay(t, readHeadless(t)[3], testkit.AllowAll(t))
	id := "general-purpose-1"
	checkIdentity(t, r, []string{id})
	var reqs []event.Event
	for _, e := range r.events {
		if e.Type == event.PermissionRequested {
			reqs = append(reqs, e)
		}
	}
	if len(reqs) != 1 {
		t.Fatalf("%d permission requests, want 1", len(reqs))
	}
	if e := reqs[0]; e.AgentID != id || e.SessionID != "s1/"+id || e.ToolCallID != "call_13_0" {
		t.Errorf("approval asked as %q (session %q, call %q), want %s for call_13_0", e.AgentID, e.SessionID, e.ToolCallID, id)
	}
	if d, _ := event.Payload[event.PermissionRequestedData](reqs[0].Data); d.Tool != "bash" || d.Subject != "touch perm.txt" || d.AgentName != id {
		t.Errorf("approval asks for %s %q by %q, want bash \"touch perm.txt\" by %s", d.Tool, d.Subject, d.AgentName, id)
	}
	if len(r.decisions) != 1 {
		t.Fatalf("decisions = %v", r.decisions)
	}
	if _, ok := r.decisions[0].(*rpc.PermissionDecisionApproveOnce); !ok {
		t.Fatalf("decision %T, want approve-once", r.decisions[0])
	}
	if rec, _ := r.state.Get(id); rec.Status != lifecycle.Completed || rec.Result != "done PERM" || rec.ToolUses != 1 {
		t.Fatalf("%s: %s %q %d tool uses, want completed \"done PERM\" after 1", id, rec.Status, rec.Result, rec.ToolUses)
	}
}

func TestReplayHeadlessGateRejectsTheSubagentsCommandNamingTheFlag(t *testing.T) {
	r := replay(t, readHeadless(t)[3], testkit.Gate(t, nil))
	if len(r.decisions) != 1 {
		t.Fatalf("decisions = %v", r.decisions)
	}
	rej, ok := r.decisions[0].(*rpc.PermissionDecisionReject)
	if !ok || rej.Feedback == nil || !strings.Contains(*rej.Feedback, "--allowed-tools") {
		t.Fatalf("decision %#v, want a reject whose feedback names --allowed-tools", r.decisions[0])
	}
	var resolved []event.Event
	for _, e := range r.events {
		if e.Type == event.PermissionResolved {
			resolved = append(resolved, e)
		}
	}
	if len(resolved) != 1 || resolved[0].AgentID != "general-purpose-1" {
		t.Fatalf("resolutions %+v, want one for general-purpose-1", resolved)
	}
	if d, _ := event.Payload[event.PermissionResolvedData](resolved[0].Data); d.Allowed {
		t.Fatal("headless gate allowed the command")
	}
}

// TestReplayUsageIsMeteredPerAgent sums the capture's assistant.usage
// events per agent itself and compares them with what the reducer added up
// from the translator's deltas.
func TestReplayUsageIsMeteredPerAgent(t *testing.T) {
	steps := readHeadless(t)[0]
	want := map[string]event.Usage{}
	agentOf := map[string]string{}
	for _, s := range steps {
		if d, ok := s.ev.Data.(*sdk.SubagentStartedData); ok {
			agentOf[*s.ev.AgentID] = map[string]string{"call_1_0": "general-purpose-1", "call_1_1": "general-purpose-2", "call_1_2": "general-purpose-3"}[d.ToolCallID]
		}
		if d, ok := s.ev.Data.(*sdk.AssistantUsageData); ok {
			id := "lead"
			if s.ev.AgentID != nil {
				id = agentOf[*s.ev.AgentID]
			}
			want[id] = want[id].Add(event.Usage{InputTokens: *d.InputTokens - *d.CacheReadTokens, OutputTokens: *d.OutputTokens, CacheReadTokens: *d.CacheReadTokens})
		}
	}
	if len(want) != 4 || want["lead"].InputTokens == 0 {
		t.Fatalf("capture usage per agent: %+v", want)
	}
	r := replay(t, steps, testkit.AllowAll(t))
	for _, e := range r.events {
		if d, _ := event.Payload[event.UsageUpdateData](e.Data); e.Type == event.UsageUpdate && !d.Delta {
			t.Errorf("%s reported usage %+v as a running total, want each model call's as a delta", e.AgentID, d.Usage)
		}
	}
	var sum event.Usage
	for id, u := range want {
		if got := r.state.Usage(id); got != u {
			t.Errorf("%s usage %+v, want %+v", id, got, u)
		}
		sum = sum.Add(u)
	}
	if total := r.state.TotalUsage(); total != sum {
		t.Errorf("run's total %+v, want %+v", total, sum)
	}
	if rec, _ := r.state.Get("general-purpose-1"); rec.Usage != want["general-purpose-1"] {
		t.Errorf("general-purpose-1's record usage %+v, want %+v", rec.Usage, want["general-purpose-1"])
	}
}
