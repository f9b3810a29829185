package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// reply is one answer the translator wrote to a server request.
type reply struct {
	ID     string
	Result json.RawMessage
	Err    *rpcError
}

// replayed is what feeding a capture to a Translator produced.
type replayed struct {
	mu      sync.Mutex
	events  []event.Event
	state   lifecycle.State
	replies []reply
	ends    []TurnEnd
	// settledAtEnd says, for each lead turn end, whether the reducer was
	// settled at that moment.
	settledAtEnd []bool
	// before maps each sub-agent to the statuses its record had just
	// before each event naming it was applied.
	before map[string][]lifecycle.Status
	// terminalBy is the event that made each record terminal.
	terminalBy map[string]event.Event
}

// readCapture returns the messages of a captured app-server stdout.
func readCapture(t testing.TB, name string) []inbound {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []inbound
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			t.Fatalf("%s: a line that is not JSON: %.80s", name, sc.Bytes())
		}
		m, ok := decodeLine(sc.Bytes())
		if !ok {
			continue // a notification Atomic never reads
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// replay feeds msgs to a Translator the way the Session does: thread/start
// results name the lead's thread, requests are answered, notifications
// translated; every event is applied to a lifecycle.State.
func replay(t *testing.T, msgs []inbound, gate *permission.Gate) *replayed {
	t.Helper()
	r, sink := newReplayed()
	cfg := backend.Config{SessionID: "s1", AgentID: "lead", Gate: gate, Sink: sink}
	tr := NewTranslator(cfg, func(id json.RawMessage, result any, rpcErr *rpcError) error {
		b, err := json.Marshal(result)
		if err != nil {
			return err
		}
		r.replies = append(r.replies, reply{ID: string(id), Result: b, Err: rpcErr})
		return nil
	})
	for _, m := range msgs {
		n, err := replayMessage(tr, m)
		if err != nil {
			t.Fatal(err)
		}
		r.note(n)
	}
	return r
}

// newReplayed returns an empty record and the sink that fills it.
func newReplayed() (*replayed, event.Sink) {
	r := &replayed{before: map[string][]lifecycle.Status{}, terminalBy: map[string]event.Event{}}
	return r, event.SinkFunc(func(e event.Event) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.events = append(r.events, e)
		if rec, ok := r.state.Get(e.AgentID); ok {
			r.before[e.AgentID] = append(r.before[e.AgentID], rec.Status)
		}
		for _, rec := range r.state.Apply(e) {
			if _, seen := r.terminalBy[rec.ID]; !seen && rec.Status.Terminal() {
				r.terminalBy[rec.ID] = e
			}
		}
	})
}

// note records a lead turn's end, and whether the reducer was settled then.
func (r *replayed) note(n Note) {
	if n.LeadTurnEnded != nil {
		r.mu.Lock()
		r.ends = append(r.ends, *n.LeadTurnEnded)
		r.settledAtEnd = append(r.settledAtEnd, r.state.Settled())
		r.mu.Unlock()
	}
}

func newGate(t testing.TB, asker permission.Asker) *permission.Gate { return testkit.Gate(t, asker) }

func allowAll(t testing.TB) *permission.Gate { return testkit.AllowAll(t) }

func checkIdentity(t *testing.T, r *replayed, ids []string) {
	t.Helper()
	testkit.CheckIdentity(t, r.events, &r.state, ids)
}

// checkBackgroundUntilOwnEnd asserts each record was background before
// every event up to its own subagent.complete, which alone ended it.
func checkBackgroundUntilOwnEnd(t *testing.T, r *replayed) {
	t.Helper()
	for _, rec := range r.state.Records() {
		by, ok := r.terminalBy[rec.ID]
		if !ok {
			t.Errorf("%s never ended", rec.ID)
			continue
		}
		if by.Type != event.SubagentComplete || by.AgentID != rec.ID {
			t.Errorf("%s ended by %s of %q, want its own subagent.complete", rec.ID, by.Type, by.AgentID)
		}
		if !rec.Background {
			t.Errorf("%s is not a background agent", rec.ID)
		}
		if rec.Session != lifecycle.SessionClosed {
			t.Errorf("%s session %q, want closed", rec.ID, rec.Session)
		}
		sts := r.before[rec.ID]
		for i, st := range sts {
			if i < len(sts)-1 && st != lifecycle.Background {
				t.Errorf("%s was %s before its end (event %d of %d naming it)", rec.ID, st, i, len(sts))
			}
		}
	}
}

func TestReplayV1FanOutInterruptApprovalYieldsStableBackgroundSubagents(t *testing.T) {
	r := replay(t, readCapture(t, "codex-subagents-appserver.jsonl"), allowAll(t))
	ids := []string{"general-purpose-1", "general-purpose-2", "general-purpose-3", "general-purpose-4", "general-purpose-5"}
	checkIdentity(t, r, ids)
	checkBackgroundUntilOwnEnd(t, r)

	want := map[string]lifecycle.Status{ids[0]: lifecycle.Completed, ids[1]: lifecycle.Completed, ids[2]: lifecycle.Completed,
		ids[3]: lifecycle.Interrupted, ids[4]: lifecycle.Completed}
	results := map[string]string{ids[0]: "done ALPHA", ids[1]: "done BETA", ids[2]: "done GAMMA", ids[4]: "done PERM"}
	for id, st := range want {
		rec, _ := r.state.Get(id)
		if rec.Status != st || rec.Result != results[id] {
			t.Errorf("%s: %s %q, want %s %q", id, rec.Status, rec.Result, st, results[id])
		}
	}
	if rec, _ := r.state.Get(ids[0]); !strings.HasPrefix(rec.Prompt, "SUBTASK-ALPHA") || rec.Name != "general-purpose" {
		t.Errorf("alpha record: name %q prompt %q", rec.Name, rec.Prompt)
	}
	if rec, _ := r.state.Get(ids[4]); rec.ToolUses != 1 {
		t.Errorf("perm agent tool uses = %d, want 1 (its touch command)", rec.ToolUses)
	}

	if len(r.ends) != 3 {
		t.Fatalf("lead turn ends = %d, want 3 (one per thread)", len(r.ends))
	}
	wantEnds := []TurnEnd{
		{Status: "completed", Text: "Summary: ALPHA, BETA and GAMMA are all done. (FG done)"},
		{Status: "interrupted", Text: "Waiting for the sub-agents."},
		{Status: "completed", Text: "The sub-agent wrote the file. (PERM done)"},
	}
	for i, w := range wantEnds {
		if r.ends[i].Status != w.Status || r.ends[i].Text != w.Text {
			t.Errorf("turn end %d = %s %q, want %s %q", i, r.ends[i].Status, r.ends[i].Text, w.Status, w.Text)
		}
		if !r.settledAtEnd[i] {
			t.Errorf("turn end %d: reducer not settled, though every child had ended", i)
		}
	}

	// The approval: the child's own, through the gate, accepted.
	var reqs, ress []event.Event
	for _, e := range r.events {
		switch e.Type {
		case event.PermissionRequested:
			reqs = append(reqs, e)
		case event.PermissionResolved:
			ress = append(ress, e)
		}
	}
	if len(reqs) != 1 || len(ress) != 1 {
		t.Fatalf("permission events: %d requested, %d resolved, want 1 and 1", len(reqs), len(ress))
	}
	if reqs[0].AgentID != ids[4] || reqs[0].SessionID != "s1/"+ids[4] || reqs[0].ToolCallID != "call_14_0" {
		t.Errorf("approval asked as %q (session %q, call %q), want %s", reqs[0].AgentID, reqs[0].SessionID, reqs[0].ToolCallID, ids[4])
	}
	if d, _ := event.Payload[event.PermissionRequestedData](reqs[0].Data); d.Tool != "bash" || d.Subject != "touch perm.txt" {
		t.Errorf("approval asks for %s %q, want bash \"touch perm.txt\"", d.Tool, d.Subject)
	}
	if len(r.replies) != 1 || r.replies[0].ID != "0" || string(r.replies[0].Result) != `{"decision":"accept"}` {
		t.Errorf("replies = %+v, want id 0 accept", r.replies)
	}
}

func TestReplayV1HeadlessGateDeclinesTheSubagentsCommandNamingTheFlag(t *testing.T) {
	r := replay(t, readCapture(t, "codex-subagents-appserver.jsonl"), newGate(t, nil))
	if len(r.replies) != 1 || string(r.replies[0].Result) != `{"decision":"decline"}` {
		t.Fatalf("replies = %+v, want one decline", r.replies)
	}
	var resolved *event.PermissionResolvedData
	for _, e := range r.events {
		if e.Type == event.PermissionResolved {
			d, _ := event.Payload[event.PermissionResolvedData](e.Data)
			resolved = &d
			if e.AgentID != "general-purpose-5" {
				t.Errorf("resolved for %q, want general-purpose-5", e.AgentID)
			}
		}
	}
	if resolved == nil || resolved.Allowed || !strings.Contains(resolved.Reason, "--allowed-tools") {
		t.Fatalf("resolution = %+v, want a denial naming --allowed-tools", resolved)
	}
}

func TestReplayV2SubAgentActivityYieldsThreeBackgroundSubagentsEndedByTheirOwnTurns(t *testing.T) {
	r := replay(t, readCapture(t, "codex-subagents-appserver-v2.jsonl"), allowAll(t))
	ids := []string{"general-purpose-1", "general-purpose-2", "general-purpose-3"}
	checkIdentity(t, r, ids)
	checkBackgroundUntilOwnEnd(t, r)
	for i, name := range []string{"alpha", "beta", "gamma"} {
		rec, _ := r.state.Get(ids[i])
		if rec.Status != lifecycle.Completed || rec.Result != "done "+strings.ToUpper(name) || rec.Description != name {
			t.Errorf("%s: %s %q (%q), want completed \"done %s\" (%s)", ids[i], rec.Status, rec.Result, rec.Description, strings.ToUpper(name), name)
		}
	}
	if len(r.ends) != 1 || r.ends[0].Status != "completed" || !r.settledAtEnd[0] {
		t.Fatalf("lead turn ends = %+v settled %v, want one completed, settled", r.ends, r.settledAtEnd)
	}
}

// TestLeadTurnEndWithChildrenRunningLeavesTheReducerUnsettled moves the
// lead's turn/completed of the v1 fan-out before its children's ends: the
// lead reporting complete must not settle the run while they still run.
func TestLeadTurnEndWithChildrenRunningLeavesTheReducerUnsettled(t *testing.T) {
	msgs := readCapture(t, "codex-subagents-appserver.jsonl")
	var leadEnd, firstWait int = -1, -1
	for i, m := range msgs {
		if m.Method == "turn/completed" && leadEnd < 0 && m.Params.ThreadID == "01a2044d-4123-75a1-a026-1c4135048d63" {
			leadEnd = i
		}
		if m.Method == "item/started" && firstWait < 0 && m.Params.Item != nil && m.Params.Item.Tool == "wait" {
			firstWait = i
		}
	}
	if leadEnd < 0 || firstWait < 0 {
		t.Fatal("capture lacks the lead's turn end or its wait")
	}
	var reordered []inbound
	reordered = append(reordered, msgs[:firstWait+1]...)
	reordered = append(reordered, msgs[leadEnd])
	reordered = append(reordered, msgs[firstWait+1:leadEnd]...)
	r := replay(t, reordered, allowAll(t))
	if len(r.ends) != 1 {
		t.Fatalf("lead turn ends = %d, want 1", len(r.ends))
	}
	if r.settledAtEnd[0] {
		t.Fatal("reducer settled at the lead's turn end while three children still ran")
	}
	if !r.state.Settled() || r.state.Counts().Completed != 3 {
		t.Fatalf("after the children's own ends: settled %v, counts %+v", r.state.Settled(), r.state.Counts())
	}
	checkBackgroundUntilOwnEnd(t, r)
}

func TestUnwrapShellOnlyStripsAWholeSingleQuotedScript(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`/bin/bash -lc 'touch perm.txt'`, "touch perm.txt"},
		{`bash -c 'echo '\''hi'\'''`, "echo 'hi'"},
		{`/bin/zsh -lc 'ls'`, "ls"},
		{`/bin/bash -lc 'a' && rm 'x'`, `/bin/bash -lc 'a' && rm 'x'`},
		{`go test ./...`, `go test ./...`},
	} {
		if got := unwrapShell(c.in); got != c.want {
			t.Errorf("unwrapShell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAFieldOfAnUnexpectedTypeDoesNotLoseTheNotification(t *testing.T) {
	var got []event.Event
	tr := NewTranslator(backend.Config{SessionID: "s1", Sink: event.SinkFunc(func(e event.Event) { got = append(got, e) })}, nil)
	tr.SetLead("th")
	m, ok := decodeLine([]byte(`{"method":"item/agentMessage/delta","params":{"threadId":"th","itemId":"m","delta":"hi","error":"a string where an object was"}}`))
	if !ok {
		t.Fatal("a notification with a field of an unexpected type was not decoded")
	}
	tr.Handle(m)
	if len(got) != 1 || got[0].Type != event.MessageDelta {
		t.Fatalf("events = %+v, want the delta", got)
	}
}

// replayMessage routes one captured message as a Session does: the answer
// to thread/start names the lead thread, a server request is answered, a
// notification is translated.
func replayMessage(tr *Translator, m inbound) (Note, error) {
	switch {
	case m.isResponse():
		var res struct {
			Thread *struct {
				ID string `json:"id"`
			} `json:"thread"`
		}
		if json.Unmarshal(m.Result, &res) == nil && res.Thread != nil {
			tr.SetLead(res.Thread.ID)
		}
		return Note{}, nil
	case m.isRequest():
		return Note{}, tr.Answer(context.Background(), m)
	}
	return tr.Handle(m), nil
}

func TestDecodeLineDropsOnlyNotificationsAtomicNeverReads(t *testing.T) {
	for _, c := range []struct {
		line string
		keep bool
	}{
		{`{"method":"account/rateLimits/updated","params":{"rateLimits":{}}}`, false},
		{`{"method":"thread/status/changed","params":{"threadId":"th","status":{"type":"idle"}}}`, false},
		{`{"method":"item/commandExecution/outputDelta","params":{"threadId":"th","delta":"x"}}`, false},
		{`{"method":"item/agentMessage/delta","params":{"threadId":"th","delta":"hi"}}`, true},
		{`{"method":"item/commandExecution/requestApproval","id":0,"params":{"threadId":"th"}}`, true},
		{`{"id":0,"method":"warning","params":{}}`, true}, // not opening with the method: decoded
		{`{"id":2,"result":{"thread":{"id":"th"}}}`, true},
		{`not json`, false},
	} {
		if _, ok := decodeLine([]byte(c.line)); ok != c.keep {
			t.Errorf("decodeLine(%s) kept %v, want %v", c.line, ok, c.keep)
		}
	}
}

func TestCancelBeforeTheSubagentsTurnBeginsInterruptsThatTurnWhenItBegins(t *testing.T) {
	tr := NewTranslator(backend.Config{SessionID: "s1", AgentID: "lead"}, func(json.RawMessage, any, *rpcError) error { return nil })
	var stop *Stop
	for _, m := range readCapture(t, "codex-subagents-appserver.jsonl") {
		n, err := replayMessage(tr, m)
		if err != nil {
			t.Fatal(err)
		}
		if m.Method == "item/completed" && m.Params.Item != nil && m.Params.Item.ID == "call_1_0" {
			st, err := tr.Cancel("general-purpose-1") // spawned, its turn not begun
			if st != nil || err != nil {
				t.Fatalf("Cancel before the turn = %+v, %v; want it deferred", st, err)
			}
		}
		if n.Interrupt != nil {
			stop = n.Interrupt
			break
		}
	}
	want := Stop{Thread: "01a2044d-424c-7162-b4e3-d045d8691b68", Turn: "01a2044d-4254-7882-b62e-e08fb7cea4e8", ID: "general-purpose-1"}
	if stop == nil || stop.Thread != want.Thread || stop.Turn != want.Turn || stop.ID != want.ID {
		t.Fatalf("interrupt = %+v, want the turn of %s as it begins", stop, want.ID)
	}
}
