package claudecode

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
)

// replayed is what a captured stream produced through the translator.
type replayed struct {
	events []event.Event
	state  lifecycle.State
	// endedBy is, per sub-agent id, the event that made its record
	// terminal; endedAt the index of that event.
	endedBy map[string]event.Type
	endedAt map[string]int
	// snapshots holds the records right after each event.
	snapshots [][]lifecycle.Record
	responses []map[string]any // control_responses written to stdin
	results   []*turnResult
}

// replay feeds a captured stdout through a translator (lead "lead",
// session "s1"), applying every event to a lifecycle.State as the runtime
// does, and answers can_use_tool requests through gate like the session.
func replay(t *testing.T, file string, gate *permission.Gate) *replayed {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := &replayed{endedBy: map[string]event.Type{}, endedAt: map[string]int{}}
	var mu sync.Mutex
	sink := event.SinkFunc(func(e event.Event) {
		mu.Lock()
		defer mu.Unlock()
		r.events = append(r.events, e)
		for _, rec := range r.state.Apply(e) {
			if _, done := r.endedBy[rec.ID]; !done && rec.Status.Terminal() {
				r.endedBy[rec.ID], r.endedAt[rec.ID] = e.Type, len(r.events)-1
			}
		}
		r.snapshots = append(r.snapshots, r.state.Records())
	})
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tr := newTranslator("s1", "lead", sink, func() time.Time { clock = clock.Add(time.Millisecond); return clock })
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		st, err := tr.feed(sc.Bytes())
		if err != nil {
			t.Fatalf("feed: %v", err)
		}
		if st.result != nil {
			r.results = append(r.results, st.result)
		}
		if st.ask != nil {
			var resp map[string]any
			if err := json.Unmarshal(tr.decide(context.Background(), gate, st.ask), &resp); err != nil {
				t.Fatal(err)
			}
			r.responses = append(r.responses, resp)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *replayed) record(t *testing.T, id string) lifecycle.Record {
	t.Helper()
	rec, ok := r.state.Get(id)
	if !ok {
		t.Fatalf("no record %s; records: %+v", id, r.state.Records())
	}
	return rec
}

// index of the first event matching f, or -1.
func (r *replayed) index(f func(event.Event) bool) int {
	for i, e := range r.events {
		if f(e) {
			return i
		}
	}
	return -1
}

func TestReplayFanOutBackgroundInterruptYieldsFiveSubagentsEachEndedByItsNotification(t *testing.T) {
	r := replay(t, "claude-subagents.jsonl", nil)

	want := map[string]lifecycle.Status{
		"general-purpose-1": lifecycle.Completed, // ALPHA
		"general-purpose-2": lifecycle.Completed, // BETA
		"general-purpose-3": lifecycle.Completed, // GAMMA
		"general-purpose-4": lifecycle.Completed, // DELTA, background
		"general-purpose-5": lifecycle.Interrupted,
	}
	if n := r.state.Len(); n != len(want) {
		t.Fatalf("%d sub-agent records, want %d: %+v", n, len(want), r.state.Records())
	}
	for id, st := range want {
		rec := r.record(t, id)
		if rec.Status != st {
			t.Errorf("%s status = %s, want %s (record %+v)", id, rec.Status, st, rec)
		}
		if rec.SessionID != "s1/"+id || rec.ParentID != "lead" || rec.Session != lifecycle.SessionClosed {
			t.Errorf("%s: session %q parent %q session state %q, want s1/%s, lead, closed", id, rec.SessionID, rec.ParentID, rec.Session, id)
		}
		if r.endedBy[id] != event.SubagentComplete {
			t.Errorf("%s ended by %s, want its subagent.complete (the task_notification)", id, r.endedBy[id])
		}
	}
	if got := r.record(t, "general-purpose-1").Result; got != "done ALPHA" {
		t.Errorf("ALPHA result = %q, want the sub-agent's answer", got)
	}
	if !r.state.Settled() {
		t.Errorf("state not settled at the end of the stream: %+v", r.state.Records())
	}
}

func TestReplayGivesEverySubagentOneIDAndItsOwnSessionInEveryEvent(t *testing.T) {
	r := replay(t, "claude-subagents.jsonl", nil)
	seen := map[string]map[event.Type]int{}
	for _, e := range r.events {
		if e.Type == event.ToolStart {
			d := e.Data.(event.ToolStartData)
			if d.Name == "task" && (d.SubagentID == "" || d.SubagentSessionID != "s1/"+d.SubagentID) {
				t.Errorf("task tool.start %s names agent %q session %q", e.ToolCallID, d.SubagentID, d.SubagentSessionID)
			}
		}
		if e.AgentID == "lead" {
			if e.SessionID != "s1" || e.ParentAgentID != "" {
				t.Errorf("lead event %s has session %q parent %q", e.Type, e.SessionID, e.ParentAgentID)
			}
			continue
		}
		if !strings.HasPrefix(e.AgentID, "general-purpose-") {
			t.Errorf("event %s names agent %q: not an id we gave", e.Type, e.AgentID)
		}
		if e.SessionID != "s1/"+e.AgentID || e.ParentAgentID != "lead" {
			t.Errorf("%s event of %s: session %q parent %q", e.Type, e.AgentID, e.SessionID, e.ParentAgentID)
		}
		if seen[e.AgentID] == nil {
			seen[e.AgentID] = map[event.Type]int{}
		}
		seen[e.AgentID][e.Type]++
	}
	for id, types := range seen {
		if types[event.SubagentStart] != 1 || types[event.SubagentComplete] != 1 {
			t.Errorf("%s: %d subagent.start and %d subagent.complete, want one each", id, types[event.SubagentStart], types[event.SubagentComplete])
		}
	}
	if len(seen) != 5 {
		t.Errorf("events name %d sub-agents, want 5", len(seen))
	}
}

func TestReplayKeepsTheBackgroundAgentBackgroundFromSpawnUntilItsNotification(t *testing.T) {
	r := replay(t, "claude-subagents.jsonl", nil)
	const id = "general-purpose-4"
	spawn := r.index(func(e event.Event) bool {
		d, ok := e.Data.(event.ToolStartData)
		return ok && e.Type == event.ToolStart && d.SubagentID == id
	})
	ack := r.index(func(e event.Event) bool { return e.Type == event.ToolComplete && e.ToolCallID == "toolu_call_6_0" })
	end := r.endedAt[id]
	if spawn < 0 || ack < spawn || end < ack {
		t.Fatalf("spawn at %d, ack at %d, end at %d: want spawn < ack < end", spawn, ack, end)
	}
	for i := spawn; i < end; i++ {
		for _, rec := range r.snapshots[i] {
			if rec.ID == id && rec.Status != lifecycle.Background {
				t.Fatalf("after event %d (%s) %s is %s, want background until its notification", i, r.events[i].Type, id, rec.Status)
			}
		}
	}
	var atAck lifecycle.Record
	for _, rec := range r.snapshots[ack] {
		if rec.ID == id {
			atAck = rec
		}
	}
	if !atAck.Background || !strings.Contains(atAck.Ack, id) {
		t.Errorf("at the spawn ack the record is %+v, want background with the ack naming %s", atAck, id)
	}
	if d := r.events[end].Data.(event.SubagentCompleteData); !d.Success || d.Result != "done DELTA" {
		t.Errorf("background completion = %+v, want success with the summary", d)
	}
}

func TestReplayEndsTurnsAtEachResultAndTheWakeTurnFollowsTheNotification(t *testing.T) {
	r := replay(t, "claude-subagents.jsonl", nil)
	if len(r.results) != 4 {
		t.Fatalf("%d results, want 4 (fan-out, background ack, wake-up, interrupt)", len(r.results))
	}
	if !strings.Contains(r.results[1].Text, "running") || !strings.Contains(r.results[2].Text, "BG done") {
		t.Errorf("results 2 and 3 = %q, %q: want the ack turn then the wake-up turn", r.results[1].Text, r.results[2].Text)
	}
	if !r.results[3].IsError {
		t.Errorf("the interrupted turn's result = %+v, want an error result", r.results[3])
	}
	if r.results[0].Usage.InputTokens != 25271 {
		t.Errorf("first turn usage %+v: want the result's 25271 input tokens", r.results[0].Usage)
	}
	// The ack turn's result leaves the background agent running.
	var usages []event.UsageUpdateData
	starts := 0
	for _, e := range r.events {
		if e.Type == event.UsageUpdate && e.AgentID == "lead" {
			usages = append(usages, e.Data.(event.UsageUpdateData))
		}
		if e.Type == event.ToolStart && e.AgentID == "lead" && len(usages) == 0 {
			starts++
		}
	}
	if starts != 3 {
		t.Errorf("the first turn started %d tool calls, want its 3 task calls", starts)
	}
	if len(usages) != 4 || !usages[0].Delta || usages[0].Usage.InputTokens != 25271 {
		t.Errorf("lead usage updates = %+v, want one per result, each the turn's", usages)
	}
	// The reducer sums the turns; the session's cost is counted once.
	if u := r.state.Usage("lead"); math.Abs(u.CostUSD-0.452308) > 1e-9 {
		t.Errorf("lead usage %+v, want the session's cost 0.452308", u)
	}
}

func TestReplayInterruptedAgentIsInterruptedByItsStoppedNotification(t *testing.T) {
	r := replay(t, "claude-subagents.jsonl", nil)
	const id = "general-purpose-5"
	end := r.endedAt[id]
	d, ok := r.events[end].Data.(event.SubagentCompleteData)
	if !ok || !d.Cancelled {
		t.Fatalf("general-purpose-5 ended by %+v, want a cancelled subagent.complete", r.events[end])
	}
	var tc event.ToolCompleteData
	for _, e := range r.events {
		if e.Type == event.ToolComplete && e.ToolCallID == "toolu_call_10_0" {
			tc = e.Data.(event.ToolCompleteData)
		}
	}
	if tc.Success || !tc.Cancelled || tc.Name != "task" {
		t.Errorf("the interrupted task call's tool.complete = %+v, want a cancelled failure", tc)
	}
}

// scriptedAsker answers every prompt with one answer and records them.
type scriptedAsker struct {
	mu     sync.Mutex
	answer permission.Answer
	asked  []permission.Request
}

func (a *scriptedAsker) Ask(_ context.Context, req permission.Request) (permission.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req)
	return a.answer, nil
}

func TestReplaySubagentApprovalGoesThroughTheGateAsTheSubagent(t *testing.T) {
	asker := &scriptedAsker{answer: permission.AllowOnce}
	gate, err := permission.NewGate(permission.Options{Mode: permission.Default, Asker: asker})
	if err != nil {
		t.Fatal(err)
	}
	r := replay(t, "claude-subagents-permission.jsonl", gate)

	if len(asker.asked) != 1 {
		t.Fatalf("asked %d times, want once", len(asker.asked))
	}
	req := asker.asked[0]
	if req.AgentID != "general-purpose-1" || req.Tool != "bash" || req.Subject != "echo hi > perm.txt" {
		t.Errorf("request = %+v, want general-purpose-1 asking for bash \"echo hi > perm.txt\"", req)
	}
	var requested, resolved *event.Event
	for i := range r.events {
		switch e := &r.events[i]; e.Type {
		case event.PermissionRequested:
			requested = e
		case event.PermissionResolved:
			resolved = e
		}
	}
	if requested == nil || resolved == nil {
		t.Fatal("no permission.requested / permission.resolved events")
	}
	for _, e := range []*event.Event{requested, resolved} {
		if e.AgentID != "general-purpose-1" || e.SessionID != "s1/general-purpose-1" || e.ParentAgentID != "lead" || e.ToolCallID != "toolu_call_2_0" {
			t.Errorf("%s names agent %q session %q parent %q call %q, want the sub-agent and its Bash call", e.Type, e.AgentID, e.SessionID, e.ParentAgentID, e.ToolCallID)
		}
	}
	if d := resolved.Data.(event.PermissionResolvedData); !d.Allowed {
		t.Errorf("resolved = %+v, want allowed", d)
	}

	// The answer written to stdin is the one the capture's driver wrote.
	wantLine := captured(t, "claude-subagents-permission.stdin.jsonl", "control_response")
	if len(r.responses) != 1 {
		t.Fatalf("%d control_responses, want 1", len(r.responses))
	}
	got, _ := json.Marshal(r.responses[0])
	want, _ := json.Marshal(wantLine)
	if string(got) != string(want) {
		t.Errorf("control_response\n got %s\nwant %s", got, want)
	}

	rec := r.record(t, "general-purpose-1")
	if rec.Status != lifecycle.Completed || rec.ToolUses != 1 || r.endedBy[rec.ID] != event.SubagentComplete {
		t.Errorf("record = %+v ended by %s, want completed by its notification after 1 tool use", rec, r.endedBy[rec.ID])
	}
	// The sub-agent's own Bash call is its own tool.start/tool.complete.
	var own []event.Type
	for _, e := range r.events {
		if e.ToolCallID == "toolu_call_2_0" && (e.Type == event.ToolStart || e.Type == event.ToolComplete) {
			own = append(own, e.Type)
			if e.AgentID != "general-purpose-1" {
				t.Errorf("%s of the sub-agent's Bash call names agent %q", e.Type, e.AgentID)
			}
		}
	}
	if len(own) != 2 {
		t.Errorf("sub-agent Bash call events = %v, want tool.start and tool.complete", own)
	}
}

func TestReplaySubagentApprovalDeniedHeadlessNamesTheFlagThatWouldAllowIt(t *testing.T) {
	gate, err := permission.NewGate(permission.Options{Mode: permission.Default})
	if err != nil {
		t.Fatal(err)
	}
	r := replay(t, "claude-subagents-permission.jsonl", gate)
	if len(r.responses) != 1 {
		t.Fatalf("%d control_responses, want 1", len(r.responses))
	}
	resp := r.responses[0]["response"].(map[string]any)["response"].(map[string]any)
	msg, _ := resp["message"].(string)
	if resp["behavior"] != "deny" || !strings.Contains(msg, "--allowed-tools") || !strings.Contains(msg, "general-purpose-1") {
		t.Errorf("response = %v, want deny naming the agent and --allowed-tools", resp)
	}
	var resolved []event.PermissionResolvedData
	for _, e := range r.events {
		if e.Type == event.PermissionResolved && e.AgentID == "general-purpose-1" {
			resolved = append(resolved, e.Data.(event.PermissionResolvedData))
		}
	}
	if len(resolved) != 1 || resolved[0].Allowed || resolved[0].Reason != msg {
		t.Errorf("permission.resolved = %+v, want one denial with the reason sent to the CLI", resolved)
	}
}

// captured returns the first line of a capture's stdin of the given type.
func captured(t *testing.T, file, typ string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		if m["type"] == typ {
			return m
		}
	}
	t.Fatalf("%s has no %s line", file, typ)
	return nil
}

func TestFeedRejectsALineThatIsNotJSON(t *testing.T) {
	tr := newTranslator("s1", "lead", event.Discard, nil)
	_, err := tr.feed([]byte("not json"))
	if err == nil || !strings.Contains(err.Error(), "not json") {
		t.Fatalf("err = %v, want an error quoting the line", err)
	}
}
