package native

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// probe is a tool that records how many of its calls overlap.
type probe struct {
	name    string
	kind    tools.Kind
	lockKey bool
	delay   time.Duration
	active  atomic.Int32
	peak    atomic.Int32
	mu      sync.Mutex
	order   []string
}

func (p *probe) Name() string        { return p.name }
func (p *probe) Description() string { return "test probe" }
func (p *probe) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}},"additionalProperties":false}`)
}
func (p *probe) Kind() tools.Kind { return p.kind }
func (p *probe) LockKeys(in json.RawMessage) []string {
	if !p.lockKey {
		return nil
	}
	var v struct{ Key string }
	json.Unmarshal(in, &v)
	return []string{v.Key}
}
func (p *probe) Run(ctx context.Context, c tools.Call) (tools.Result, error) {
	n := p.active.Add(1)
	defer p.active.Add(-1)
	for {
		old := p.peak.Load()
		if n <= old || p.peak.CompareAndSwap(old, n) {
			break
		}
	}
	p.mu.Lock()
	p.order = append(p.order, string(c.Input))
	p.mu.Unlock()
	select {
	case <-time.After(p.delay):
	case <-ctx.Done():
		return tools.Result{}, ctx.Err()
	}
	return tools.Result{Content: "ok " + string(c.Input)}, nil
}

type recorder struct {
	mu  sync.Mutex
	evs []event.Event
}

func (r *recorder) Emit(e event.Event) {
	r.mu.Lock()
	r.evs = append(r.evs, e)
	r.mu.Unlock()
}

func (r *recorder) of(typ event.Type) []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []event.Event
	for _, e := range r.evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

const threeCalls = `
rules:
  - name: answer
    match: {has_tool_results: true}
    respond: {text: "done"}
  - name: calls
    respond:
      tool_calls:
        - {name: %s, input: {key: "a"}}
        - {name: %s, input: {key: "%s"}}
        - {name: %s, input: {key: "c"}}
`

func scenario(name, second string) string {
	return strings.NewReplacer("%s", name).Replace(strings.Replace(threeCalls, `"%s"`, `"`+second+`"`, 1))
}

func TestReadOnlyCallsOfOneMessageRunConcurrently(t *testing.T) {
	p, _ := testkit.Model(t, scenario("look", "b"))
	pr := &probe{name: "look", kind: tools.ReadOnly, delay: 150 * time.Millisecond}
	s := New(Config{ID: "lead", Provider: p, Tools: tools.NewSet(pr)})
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Text != "done" {
		t.Fatalf("res %+v err %v", res, err)
	}
	if pr.peak.Load() != 3 {
		t.Fatalf("peak concurrency %d, want 3: the calls did not overlap", pr.peak.Load())
	}
}

func TestCallsSharingALockKeyRunOneAtATimeInOrder(t *testing.T) {
	p, _ := testkit.Model(t, scenario("put", "a"))
	pr := &probe{name: "put", kind: tools.Edit, lockKey: true, delay: 60 * time.Millisecond}
	s := New(Config{ID: "lead", Provider: p, Tools: tools.NewSet(pr)})
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	// Two calls write key "a": they never overlap, and keep the model's order;
	// the "c" call runs beside them.
	if pr.peak.Load() != 2 {
		t.Fatalf("peak %d, want 2 (a and c together, never a and a)", pr.peak.Load())
	}
	var as []int
	for i, o := range pr.order {
		if strings.Contains(o, `"a"`) {
			as = append(as, i)
		}
	}
	if len(as) != 2 {
		t.Fatalf("order %v", pr.order)
	}
}

func TestToolResultsGoBackInCallOrder(t *testing.T) {
	p, srv := testkit.Model(t, scenario("look", "b"))
	pr := &probe{name: "look", kind: tools.ReadOnly, delay: time.Millisecond}
	s := New(Config{ID: "lead", Provider: p, Tools: tools.NewSet(pr)})
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	res := srv.Log()[1].LastToolResults()
	for i, want := range []string{`"a"`, `"b"`, `"c"`} {
		if !strings.Contains(res[i].Content, want) {
			t.Fatalf("result %d = %q", i, res[i].Content)
		}
	}
}

func TestBadInputUnknownToolAndDenialBecomeToolErrors(t *testing.T) {
	p, srv := testkit.Model(t, `
rules:
  - name: answer
    match: {has_tool_results: true}
    respond: {text: "noted"}
  - name: calls
    respond:
      tool_calls:
        - {name: look, input: {nope: 1}}
        - {name: fly, input: {}}
        - {name: put, input: {key: "x"}}
`)
	gate, _ := permission.NewGate(permission.Options{Mode: permission.Plan})
	s := New(Config{ID: "lead", Provider: p, Gate: gate, Tools: tools.NewSet(
		&probe{name: "look", kind: tools.ReadOnly}, &probe{name: "put", kind: tools.Edit})})
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Text != "noted" {
		t.Fatalf("res %+v err %v", res, err)
	}
	got := srv.Log()[1].LastToolResults()
	wants := []string{"nope", `unknown tool "fly"`, "plan mode"}
	for i, w := range wants {
		if !got[i].IsError || !strings.Contains(got[i].Content, w) {
			t.Errorf("result %d = %+v, want an error mentioning %q", i, got[i], w)
		}
	}
}

func TestCancellingMidStreamRecordsWhatWasCutOff(t *testing.T) {
	p, _ := testkit.Model(t, `
rules:
  - respond: {text: "one two three four five six seven eight nine ten eleven twelve", chunk_delay_ms: 100}
`)
	rec := &recorder{}
	s := New(Config{ID: "lead", Provider: p, Sink: rec})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		testkit.WaitFor(t, 5*time.Second, "first delta", func() bool { return len(rec.of(event.MessageDelta)) > 0 })
		cancel()
	}()
	_, err := s.Run(ctx, "count")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	h := s.History()
	last := h[len(h)-1]
	if last.Role != provider.RoleAssistant || !strings.Contains(last.Parts[0].Text, "[interrupted by the user]") {
		t.Fatalf("history does not record the cut-off answer: %+v", last)
	}
	mc := rec.of(event.MessageComplete)
	if len(mc) != 1 || mc[0].Data.(event.MessageCompleteData).StopReason != "interrupted" {
		t.Fatalf("message.complete: %+v", mc)
	}
}

func TestCancellingDuringToolsMarksThemCancelled(t *testing.T) {
	p, _ := testkit.Model(t, scenario("look", "b"))
	rec := &recorder{}
	pr := &probe{name: "look", kind: tools.ReadOnly, delay: 10 * time.Second}
	s := New(Config{ID: "lead", Provider: p, Sink: rec, Tools: tools.NewSet(pr)})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		testkit.WaitFor(t, 5*time.Second, "tools running", func() bool { return pr.active.Load() == 3 })
		cancel()
	}()
	start := time.Now()
	_, err := s.Run(ctx, "go")
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
	done := rec.of(event.ToolComplete)
	if len(done) != 3 {
		t.Fatalf("%d tool.complete events, want one for each of the 3 cancelled calls", len(done))
	}
	for _, e := range done {
		if !e.Data.(event.ToolCompleteData).Cancelled {
			t.Fatalf("tool.complete not marked cancelled: %+v", e.Data)
		}
	}
	// The history stays valid: every call has its result.
	h := s.History()
	if n := len(h[len(h)-1].Parts); n != 3 || h[len(h)-1].Parts[0].ToolResult == nil {
		t.Fatalf("last message should carry 3 tool results: %+v", h[len(h)-1])
	}
}

func TestTurnLimitStopsTheLoop(t *testing.T) {
	p, _ := testkit.Model(t, `
rules:
  - respond:
      tool_calls:
        - {name: look, input: {key: "again"}}
`)
	s := New(Config{ID: "lead", Provider: p, MaxTurns: 3, Tools: tools.NewSet(&probe{name: "look", kind: tools.ReadOnly})})
	res, err := s.Run(context.Background(), "loop forever")
	if !errors.Is(err, ErrMaxTurns) || res.Turns != 3 {
		t.Fatalf("err %v turns %d", err, res.Turns)
	}
}

func TestDeliveredMessagesJoinTheNextRequest(t *testing.T) {
	p, srv := testkit.Model(t, `
rules:
  - respond: {text: "ok"}
`)
	s := New(Config{ID: "lead", Provider: p})
	s.Deliver("note from a teammate")
	if _, err := s.Run(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	if got := srv.Log()[0].LastUserText(); !strings.Contains(got, "hello") || !strings.Contains(got, "note from a teammate") {
		t.Fatalf("last user text %q", got)
	}
	if s.Pending() {
		t.Fatal("inbox should be drained")
	}
}

type allowAll struct{ asked int }

func (a *allowAll) Ask(ctx context.Context, req permission.Request) (permission.Answer, error) {
	a.asked++
	return permission.AllowOnce, nil
}

func TestApprovalsAreReportedBeforeAndAfterTheWait(t *testing.T) {
	scen := `
rules:
  - {name: answer, match: {has_tool_results: true}, respond: {text: "ok"}}
  - name: calls
    respond:
      tool_calls:
        - {name: put, input: {key: "a"}}
        - {name: look, input: {key: "b"}}
`
	for _, c := range []struct {
		name    string
		asker   permission.Asker
		allowed bool
	}{{"headless denial", nil, false}, {"a human allows", &allowAll{}, true}} {
		t.Run(c.name, func(t *testing.T) {
			p, _ := testkit.Model(t, scen)
			gate, _ := permission.NewGate(permission.Options{Asker: c.asker})
			rec := &recorder{}
			s := New(Config{ID: "explore-1", ParentID: "lead", Provider: p, Gate: gate, Sink: rec, Tools: tools.NewSet(
				&probe{name: "put", kind: tools.Edit}, &probe{name: "look", kind: tools.ReadOnly})})
			if _, err := s.Run(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			req, res := rec.of(event.PermissionRequested), rec.of(event.PermissionResolved)
			if len(req) != 1 || len(res) != 1 {
				t.Fatalf("only the edit needs approval: %d requested, %d resolved", len(req), len(res))
			}
			rd := req[0].Data.(event.PermissionRequestedData)
			sd := res[0].Data.(event.PermissionResolvedData)
			if rd.AgentName != "explore-1" || rd.Tool != "put" || req[0].ParentAgentID != "lead" || req[0].ToolCallID == "" {
				t.Fatalf("request %+v / %+v", req[0], rd)
			}
			if len(rd.SessionRules) != 1 || rd.SessionRules[0] != "put" {
				t.Fatalf("request offers session rules %q, want the one \"allow for this session\" adds: put", rd.SessionRules)
			}
			if sd.RequestID != rd.RequestID || sd.Allowed != c.allowed || (!c.allowed && !strings.Contains(sd.Reason, "--permission-mode acceptEdits")) {
				t.Fatalf("resolution %+v", sd)
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			var order []event.Type
			for _, e := range rec.evs {
				if e.ToolCallID == req[0].ToolCallID {
					order = append(order, e.Type)
				}
			}
			want := []event.Type{event.ToolStart, event.PermissionRequested, event.PermissionResolved, event.ToolComplete}
			if len(order) != 4 || order[1] != want[1] || order[2] != want[2] || order[3] != want[3] {
				t.Fatalf("order %v, want %v", order, want)
			}
		})
	}
}
