package opencode

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
)

// replayed is what feeding one lead session of a capture to a Translator
// produced.
type replayed struct {
	events []event.Event
	state  lifecycle.State
	notes  []Note
	// settledAtIdle says, for each lead idle, whether the reducer was
	// settled then.
	settledAtIdle []bool
	// replies are the answers given to permission.asked.
	replies []string
	// before maps each sub-agent to its record's status just before each
	// event naming it.
	before map[string][]lifecycle.Status
}

// readSSE returns the events of a captured raw SSE stream.
func readSSE(t testing.TB, name string) []Event {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Event
	if err := ReadSSE(f, func(e Event) { out = append(out, e) }); err != nil {
		t.Fatal(err)
	}
	return out
}

// readJSONL returns the events of a capture stored one JSON per line.
func readJSONL(t testing.TB, name string) []Event {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// leads maps each captured session's title (CAP-FG3…) to the id POST
// /session gave it, from the driver's HTTP log.
func leads(t testing.TB, name string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		var req struct {
			Title string `json:"title"`
		}
		body, ok := strings.CutPrefix(l, ">> POST /session {")
		if !ok || i+1 >= len(lines) || json.Unmarshal([]byte("{"+body), &req) != nil {
			continue
		}
		var res struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[i+1], "<< 200 ")), &res); err != nil {
			t.Fatalf("%s: answer to POST /session %s: %v", name, req.Title, err)
		}
		out[req.Title] = res.ID
	}
	return out
}

// replay feeds evs to a Translator whose lead is OpenCode session lead, the
// way the Session does: permission.asked decided through gate, the rest
// translated; every event is applied to a lifecycle.State.
func replay(t *testing.T, evs []Event, lead string, gate *permission.Gate) *replayed {
	t.Helper()
	r := &replayed{before: map[string][]lifecycle.Status{}}
	sink := event.SinkFunc(func(e event.Event) {
		r.events = append(r.events, e)
		if rec, ok := r.state.Get(e.AgentID); ok {
			r.before[e.AgentID] = append(r.before[e.AgentID], rec.Status)
		}
		r.state.Apply(e)
	})
	clock := time.Unix(0, 0)
	now := func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	tr := NewTranslator(backend.Config{SessionID: "s1", AgentID: "lead", Gate: gate, Sink: sink, Now: now})
	tr.SetLead(lead)
	for _, e := range evs {
		if ask, ok := tr.Asked(e); ok {
			d := backend.Decide(context.Background(), gate, sink, ask.base, ask.req)
			r.replies = append(r.replies, Reply(d))
			continue
		}
		n := tr.Handle(e)
		if n != (Note{}) {
			r.notes = append(r.notes, n)
		}
		if n.LeadIdle {
			r.settledAtIdle = append(r.settledAtIdle, r.state.Settled())
		}
	}
	return r
}

func newGate(t testing.TB, asker permission.Asker) *permission.Gate {
	t.Helper()
	g, err := permission.NewGate(permission.Options{Mode: permission.Default, Asker: asker})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

type askerFunc func(context.Context, permission.Request) (permission.Answer, error)

func (f askerFunc) Ask(ctx context.Context, r permission.Request) (permission.Answer, error) {
	return f(ctx, r)
}

func allowAll(t testing.TB) *permission.Gate {
	return newGate(t, askerFunc(func(context.Context, permission.Request) (permission.Answer, error) {
		return permission.AllowOnce, nil
	}))
}

// of returns the events of type typ.
func (r *replayed) of(typ event.Type) []event.Event {
	var out []event.Event
	for _, e := range r.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// checkIdentity asserts every event naming sub-agent id carries its own
// session and the lead as parent, and that its task call started with its
// reserved id before anything of its own.
func checkIdentity(t *testing.T, r *replayed, ids []string) {
	t.Helper()
	for _, id := range ids {
		first := -1
		for i, e := range r.events {
			if e.Type == event.ToolStart && e.AgentID == "lead" {
				if d, _ := event.Payload[event.ToolStartData](e.Data); d.SubagentID == id {
					if d.SubagentSessionID != "s1/"+id {
						t.Errorf("task call of %s reserves session %q", id, d.SubagentSessionID)
					}
					first = i
				}
			}
			if e.AgentID != id {
				continue
			}
			if first < 0 {
				t.Errorf("%s of %s before its task call's tool.start", e.Type, id)
			}
			if e.SessionID != "s1/"+id || e.ParentAgentID != "lead" {
				t.Errorf("%s of %s: session %q parent %q", e.Type, id, e.SessionID, e.ParentAgentID)
			}
		}
		if first < 0 {
			t.Errorf("no task call reserved %s", id)
		}
	}
}

func TestReplayFanOutYieldsThreeOverlappingSyncSubagentsEndedByTheirParentParts(t *testing.T) {
	for _, capture := range []struct{ events, http string }{
		{"opencode-subagents-serve.event.sse", "opencode-subagents-serve.http.txt"},
		{"opencode-subagents-serve-bgflag.event.jsonl", "opencode-subagents-serve-bgflag.http.txt"},
	} {
		t.Run(capture.events, func(t *testing.T) {
			evs := readCapture(t, capture.events)
			r := replay(t, evs, leads(t, capture.http)["CAP-FG3"], allowAll(t))
			ids := []string{"general-1", "general-2", "general-3"}
			checkIdentity(t, r, ids)
			starts, ends := r.of(event.SubagentStart), r.of(event.SubagentComplete)
			if len(starts) != 3 || len(ends) != 3 {
				t.Fatalf("%d subagent.start, %d subagent.complete, want 3 and 3", len(starts), len(ends))
			}
			if starts[2].Time.After(ends[0].Time) || indexOf(r.events, starts[2]) > indexOf(r.events, ends[0]) {
				t.Errorf("the third sub-agent started after the first ended: they did not overlap")
			}
			for i, name := range []string{"ALPHA", "BETA", "GAMMA"} {
				rec, _ := r.state.Get(ids[i])
				if rec.Status != lifecycle.Completed || rec.Result != "done "+name || rec.Background || rec.Name == "" {
					t.Errorf("%s: %s %q background %v, want completed \"done %s\", sync", ids[i], rec.Status, rec.Result, rec.Background, name)
				}
				d, _ := event.Payload[event.SubagentStartData](starts[i].Data)
				if d.Backend != backend.OpenCode || d.AgentType != "general" || d.Description != "Subtask "+strings.ToLower(name) {
					t.Errorf("subagent.start %d: %+v", i, d)
				}
				if !said(r, ids[i], "done "+name) {
					t.Errorf("%s's own message \"done %s\" is missing", ids[i], name)
				}
			}
			// The sub-agent ends before its task call returns.
			for _, end := range ends {
				for i, e := range r.events {
					if e.Type == event.ToolComplete && e.ToolCallID == end.ToolCallID && i < indexOf(r.events, end) {
						t.Errorf("task %s returned before %s's subagent.complete", e.ToolCallID, end.AgentID)
					}
				}
			}
			if !said(r, "lead", "Summary: ALPHA, BETA and GAMMA are all done. (FG done)") {
				t.Errorf("the lead's summary is missing")
			}
			// The streamed text is the model's, never the prompts.
			var deltas, texts strings.Builder
			for _, e := range r.events {
				switch d := e.Data.(type) {
				case event.MessageDeltaData:
					deltas.WriteString(d.Text)
				case event.MessageCompleteData:
					texts.WriteString(d.Text)
				}
			}
			if deltas.String() != texts.String() {
				t.Errorf("deltas %q do not add up to the messages %q", deltas.String(), texts.String())
			}
			if len(r.settledAtIdle) == 0 || !r.settledAtIdle[len(r.settledAtIdle)-1] {
				t.Errorf("lead idles %v, want the last settled", r.settledAtIdle)
			}
			if u := r.of(event.UsageUpdate); len(u) == 0 {
				t.Errorf("no usage.update")
			} else if total := r.state.TotalUsage(); total.InputTokens < 8079+8413+3*6065 {
				t.Errorf("total usage %+v does not count the lead's and the sub-agents' steps", total)
			}
		})
	}
}

func TestReplayAbortedLeadEndsItsSlowSubagentInterrupted(t *testing.T) {
	r := replay(t, readCapture(t, "opencode-subagents-serve.event.sse"), leads(t, "opencode-subagents-serve.http.txt")["CAP-INT"], allowAll(t))
	checkIdentity(t, r, []string{"general-1"})
	rec, ok := r.state.Get("general-1")
	if !ok || rec.Status != lifecycle.Interrupted {
		t.Fatalf("general-1: %+v, want interrupted", rec)
	}
	ends := r.of(event.SubagentComplete)
	if d, _ := event.Payload[event.SubagentCompleteData](ends[0].Data); len(ends) != 1 || !d.Cancelled || d.Success {
		t.Fatalf("subagent.complete %+v, want one, cancelled", ends)
	}
}

func TestReplaySubagentsApprovalIsAskedAsTheSubagent(t *testing.T) {
	var asked []permission.Request
	gate := newGate(t, askerFunc(func(_ context.Context, req permission.Request) (permission.Answer, error) {
		asked = append(asked, req)
		return permission.AllowOnce, nil
	}))
	r := replay(t, readCapture(t, "opencode-subagents-serve.event.sse"), leads(t, "opencode-subagents-serve.http.txt")["CAP-PERM"], gate)
	checkIdentity(t, r, []string{"general-1"})
	if len(asked) != 1 || asked[0].AgentName != "general-1" || asked[0].Tool != "bash" || asked[0].Subject != "touch perm.txt" {
		t.Fatalf("asked %+v, want general-1's bash `touch perm.txt`", asked)
	}
	if len(r.replies) != 1 || r.replies[0] != "once" {
		t.Fatalf("replies %v, want [once]", r.replies)
	}
	req := r.of(event.PermissionRequested)
	if len(req) != 1 || req[0].AgentID != "general-1" || req[0].SessionID != "s1/general-1" || req[0].ToolCallID != "call_9_0" {
		t.Fatalf("permission.requested %+v, want general-1's, for call_9_0", req)
	}
	var bash []event.Event
	for _, e := range r.of(event.ToolComplete) {
		if d, _ := event.Payload[event.ToolCompleteData](e.Data); d.Name == "bash" {
			bash = append(bash, e)
		}
	}
	if len(bash) != 1 || bash[0].AgentID != "general-1" {
		t.Fatalf("bash completions %+v, want one, general-1's", bash)
	}
	if rec, _ := r.state.Get("general-1"); rec.Status != lifecycle.Completed || rec.ToolUses != 1 || rec.Result != "done PERM" {
		t.Fatalf("general-1: %+v, want completed with one tool use", rec)
	}
}

func TestReplayHeadlessGateRejectsTheSubagentsCommandNamingTheFlag(t *testing.T) {
	r := replay(t, readCapture(t, "opencode-subagents-serve.event.sse"), leads(t, "opencode-subagents-serve.http.txt")["CAP-PERM"], newGate(t, nil))
	if len(r.replies) != 1 || r.replies[0] != "reject" {
		t.Fatalf("replies %v, want [reject]", r.replies)
	}
	res := r.of(event.PermissionResolved)
	if len(res) != 1 {
		t.Fatalf("%d permission.resolved, want 1", len(res))
	}
	if d, _ := event.Payload[event.PermissionResolvedData](res[0].Data); d.Allowed || !strings.Contains(d.Reason, "--allowed-tools") || res[0].AgentID != "general-1" {
		t.Fatalf("resolution %+v of %s, want general-1's denial naming --allowed-tools", d, res[0].AgentID)
	}
}

func TestReplayBackgroundSubagentStaysBackgroundUntilItsCompletionMessage(t *testing.T) {
	r := replay(t, readCapture(t, "opencode-subagents-serve-bgflag.event.jsonl"), leads(t, "opencode-subagents-serve-bgflag.http.txt")["CAP-BG"], allowAll(t))
	checkIdentity(t, r, []string{"general-1"})
	rec, _ := r.state.Get("general-1")
	if rec.Status != lifecycle.Completed || !rec.Background || rec.Result != "done BGX" {
		t.Fatalf("general-1: %s background %v %q, want completed background \"done BGX\"", rec.Status, rec.Background, rec.Result)
	}
	if !strings.Contains(rec.Ack, "Background task started") {
		t.Errorf("ack %q, want the spawn acknowledgement", rec.Ack)
	}
	// Moved to the background while running, it is background for every
	// later event until its own end.
	seenBG := false
	for _, st := range r.before["general-1"] {
		switch {
		case st == lifecycle.Background:
			seenBG = true
		case seenBG:
			t.Fatalf("general-1 went %s after background, before its completion: %v", st, r.before["general-1"])
		}
	}
	if !seenBG {
		t.Fatalf("general-1 never background: %v", r.before["general-1"])
	}
	// The lead's first idle comes while it works; the completion message
	// wakes the lead, whose second turn ends settled.
	if len(r.settledAtIdle) < 2 || r.settledAtIdle[0] || !r.settledAtIdle[len(r.settledAtIdle)-1] {
		t.Fatalf("settled at lead idles %v, want unsettled first, settled last", r.settledAtIdle)
	}
	woke := 0
	for _, n := range r.notes {
		if n.Woke {
			woke++
		}
	}
	if woke != 1 {
		t.Fatalf("%d wake notes, want 1", woke)
	}
	if !said(r, "lead", "Background sub-agent BGX finished. (BG done)") {
		t.Errorf("the lead's answer to the completion is missing")
	}
}

func TestReplayWithoutTheBackgroundFlagTheMovedTaskRunsSync(t *testing.T) {
	r := replay(t, readCapture(t, "opencode-subagents-serve.event.sse"), leads(t, "opencode-subagents-serve.http.txt")["CAP-BG"], allowAll(t))
	rec, _ := r.state.Get("general-1")
	if rec.Status != lifecycle.Completed || rec.Background || rec.Result != "done BGX" {
		t.Fatalf("general-1: %s background %v %q, want completed sync \"done BGX\"", rec.Status, rec.Background, rec.Result)
	}
}

// TestReplayRunJSONFeedsCompletedTaskParts feeds `opencode run --format
// json`, whose lines carry the parent's parts only: each task part, seen
// first completed, is a sub-agent started and ended at once.
func TestReplayRunJSONFeedsCompletedTaskParts(t *testing.T) {
	var evs []Event
	lead := ""
	b, err := os.ReadFile(filepath.Join("testdata", "opencode-subagents-run.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var l struct {
			SessionID string          `json:"sessionID"`
			Part      json.RawMessage `json:"part"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		lead = l.SessionID
		p, _ := json.Marshal(map[string]any{"sessionID": l.SessionID, "part": l.Part})
		evs = append(evs, Event{Type: "message.part.updated", Properties: p})
	}
	r := replay(t, evs, lead, allowAll(t))
	checkIdentity(t, r, []string{"general-1", "general-2", "general-3"})
	if c := r.state.Counts(); c.Completed != 3 || c.Total() != 3 {
		t.Fatalf("agents %+v, want three completed", c)
	}
	if !said(r, "lead", "Summary: ALPHA, BETA and GAMMA are all done. (FG done)") {
		t.Errorf("the lead's summary is missing")
	}
}

// readCapture reads a capture by its extension.
func readCapture(t testing.TB, name string) []Event {
	if strings.HasSuffix(name, ".sse") {
		return readSSE(t, name)
	}
	return readJSONL(t, name)
}

func said(r *replayed, agent, text string) bool {
	for _, e := range r.of(event.MessageComplete) {
		if d, _ := event.Payload[event.MessageCompleteData](e.Data); e.AgentID == agent && strings.TrimSpace(d.Text) == text {
			return true
		}
	}
	return false
}

func indexOf(evs []event.Event, e event.Event) int {
	for i, x := range evs {
		if x.Type == e.Type && x.AgentID == e.AgentID && x.ToolCallID == e.ToolCallID && x.Time.Equal(e.Time) {
			return i
		}
	}
	return -1
}
