//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/atomic-agent/atomic/internal/observe"
	"github.com/atomic-agent/atomic/internal/store"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// threeSubagents: the lead fans out three sub-agents (the default type),
// each answering after 300 ms.
var threeSubagents = fanOutScenario(3, 300)

// readLifecycleLog returns the agent.end lines of the lifecycle log under
// stateHome, read back by observe.ReadLog, and how many lines it has.
func readLifecycleLog(t *testing.T, stateHome string) (ends []observe.Span, lines int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(stateHome, "atomic", "atomic.log"))
	if err != nil {
		t.Fatalf("the lifecycle log: %v", err)
	}
	ends, skipped, err := observe.ReadLog(bytes.NewReader(b), time.Time{})
	if err != nil || skipped > 0 {
		t.Fatalf("reading the lifecycle log: %v, %d lines skipped:\n%s", err, skipped, b)
	}
	return ends, bytes.Count(b, []byte("\n"))
}

// runWithEnv runs atomic against srv with extra environment variables.
func runWithEnv(t *testing.T, srvScenario string, env []string, args ...string) result {
	t.Helper()
	srv := server(t, srvScenario)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", t.TempDir(), args...)
	cmd.Env = append(cmd.Env, env...)
	return runCmd(t, cmd)
}

func TestEveryRunLogsEachAgentsStartAndEndToTheStateDir(t *testing.T) {
	state := t.TempDir()
	for range 2 {
		r := runWithEnv(t, threeSubagents, []string{"XDG_STATE_HOME=" + state}, "-p", "survey")
		if r.code != 0 {
			t.Fatalf("code %d: %s", r.code, r.stderr)
		}
	}
	ends, lines := readLifecycleLog(t, state)
	if lines != 2*2*4 || len(ends) != 2*4 {
		t.Fatalf("two runs of a lead and 3 sub-agents: want 16 lines (a start and an end each), got %d with %d ends: %+v", lines, len(ends), ends)
	}
	sessions := map[string]int{}
	for _, l := range ends {
		sessions[l.SessionID]++
		switch l.Kind {
		case "lead":
			if l.AgentID != "lead" || l.ParentID != "" || l.Status != "completed" || l.Backend != "native" {
				t.Errorf("the lead's end: %+v", l)
			}
		case "subagent":
			if l.ParentID != "lead" || l.Type != "general-purpose" || l.Status != "completed" || l.Backend != "native" || l.Duration() < 300*time.Millisecond {
				t.Errorf("a sub-agent's end (it answers after 300 ms): %+v", l)
			}
		default:
			t.Errorf("unexpected kind: %+v", l)
		}
	}
	if len(sessions) != 2 {
		t.Errorf("ends by session: %v, want 4 in each of 2 sessions", sessions)
	}
	for s, n := range sessions {
		if n != 4 {
			t.Errorf("session %s has %d ends, want 4", s, n)
		}
	}
}

// oneFailsScenario: the lead spawns two explore sub-agents; the model
// refuses the second one's request (400), so it fails.
const oneFailsScenario = `
rules:
  - name: lead-final
    match: {system_contains: "You are Atomic", has_tool_results: true}
    respond: {text: "One of two."}
  - name: lead-fanout
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "ok", prompt: "TASK-OK", subagent_type: explore}}
        - {name: task, input: {description: "bad", prompt: "TASK-BAD", subagent_type: explore}}
  - {name: bad, match: {system_contains: "You are a sub-agent", first_user_contains: TASK-BAD}, respond: {error: {status: 400, message: "bad request"}}}
  - {name: ok, match: {system_contains: "You are a sub-agent"}, respond: {text: "fine", delay_ms: 100}}
`

func TestStatsAfterAMixOfRunsCountsSpawnsAndErrorsPerTypeAndBackend(t *testing.T) {
	state := t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	for _, sc := range []string{threeSubagents, threeSubagents, oneFailsScenario} {
		if r := runWithEnv(t, sc, env, "-p", "go"); r.code != 0 {
			t.Fatalf("code %d: %s", r.code, r.stderr)
		}
	}
	cmd := exec.Command(binary, "stats", "--json")
	cmd.Env = []string{"HOME=" + t.TempDir(), "XDG_STATE_HOME=" + state}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("atomic stats: %v", err)
	}
	var rows []struct {
		Type, Backend  string
		Spawns, Errors int
		P50MS          int64 `json:"p50_ms"`
		P95MS          int64 `json:"p95_ms"`
		ToolUses       int   `json:"tool_uses"`
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("atomic stats --json printed %q: %v", out, err)
	}
	// Rows come most spawned first: 6 general-purpose (two fan-outs of
	// 3), 3 leads, 2 Explore (one refused).
	if len(rows) != 3 {
		t.Fatalf("want general-purpose, lead and Explore rows, got %+v", rows)
	}
	gp, lead, ex := rows[0], rows[1], rows[2]
	if gp.Type != "general-purpose" || gp.Backend != "native" || gp.Spawns != 6 || gp.Errors != 0 || gp.P50MS < 300 || gp.P95MS < gp.P50MS {
		t.Errorf("general-purpose row %+v: want 6 spawned, none failed, p50 at least the 300 ms answer", gp)
	}
	if lead.Type != "lead" || lead.Spawns != 3 || lead.Errors != 0 || lead.ToolUses != 8 {
		t.Errorf("lead row %+v: want 3 leads, none failed, 8 task calls", lead)
	}
	if ex.Type != "Explore" || ex.Backend != "native" || ex.Spawns != 2 || ex.Errors != 1 {
		t.Errorf("Explore row %+v: want 2 spawned, 1 failed", ex)
	}
	text := exec.Command(binary, "stats", "--since", "1h")
	text.Env = cmd.Env
	tout, err := text.Output()
	if err != nil || !strings.Contains(string(tout), "Explore") || !strings.Contains(string(tout), "p95") {
		t.Errorf("atomic stats --since 1h: %v\n%s", err, tout)
	}
}

func TestOTLPExportGetsOneTraceWithASpanPerAgentUnderTheLeadAndTheirMetrics(t *testing.T) {
	col := testkit.NewCollector(t)
	r := runWithEnv(t, threeSubagents, []string{
		"XDG_STATE_HOME=" + t.TempDir(),
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + col.URL(),
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_SERVICE_NAME=atomic-e2e",
	}, "-p", "survey")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	if bad := col.Bad(); len(bad) > 0 {
		t.Fatalf("the collector could not decode: %v", bad)
	}
	var spans, calls []*tracepb.Span
	for _, s := range col.Spans() {
		if strings.HasPrefix(s.Name, "invoke_agent ") {
			spans = append(spans, s)
		} else {
			calls = append(calls, s)
		}
	}
	if len(spans) != 4 {
		t.Fatalf("want 4 agent spans (the lead and 3 sub-agents), got %d", len(spans))
	}
	checkCallSpans(t, spans, calls)
	var lead *tracepb.Span
	for _, s := range spans {
		if s.Name == "invoke_agent lead" {
			lead = s
		}
	}
	if lead == nil || len(lead.ParentSpanId) != 0 {
		t.Fatalf("want a root span named invoke_agent lead, got %v", spans)
	}
	for _, s := range spans {
		if !bytes.Equal(s.TraceId, lead.TraceId) {
			t.Errorf("span %s is in another trace", s.Name)
		}
		if s == lead {
			continue
		}
		if s.Name != "invoke_agent general-purpose" || !bytes.Equal(s.ParentSpanId, lead.SpanId) {
			t.Errorf("span %q (parent %x): want invoke_agent general-purpose under the lead's span %x", s.Name, s.ParentSpanId, lead.SpanId)
		}
		if got := testkit.Attr(s.Attributes, "atomic.backend"); got != "native" {
			t.Errorf("span %s backend %q", s.Name, got)
		}
		if d := time.Duration(s.EndTimeUnixNano - s.StartTimeUnixNano); d < 300*time.Millisecond || s.StartTimeUnixNano < lead.StartTimeUnixNano {
			t.Errorf("sub-agent span lasts %v from %d (lead from %d): want at least its 300 ms, within the lead's", d, s.StartTimeUnixNano, lead.StartTimeUnixNano)
		}
	}
	if got := col.ResourceAttr("service.name"); got != "atomic-e2e" {
		t.Errorf("service.name %q, want OTEL_SERVICE_NAME's atomic-e2e", got)
	}
	metrics := col.Metrics()
	spawns := metrics["atomic.agent.spawns"].GetSum()
	byType := map[string]int64{}
	for _, dp := range spawns.GetDataPoints() {
		byType[testkit.Attr(dp.Attributes, "gen_ai.agent.name")+"/"+testkit.Attr(dp.Attributes, "atomic.backend")] += dp.GetAsInt()
	}
	if byType["general-purpose/native"] != 3 || byType["lead/native"] != 1 || len(byType) != 2 {
		t.Errorf("atomic.agent.spawns by type and backend: %v, want general-purpose/native 3 and lead/native 1", byType)
	}
	var exploreCount uint64
	for _, dp := range metrics["atomic.agent.duration"].GetHistogram().GetDataPoints() {
		if testkit.Attr(dp.Attributes, "gen_ai.agent.name") == "general-purpose" {
			exploreCount += dp.Count
			if dp.GetMin() < 0.3 {
				t.Errorf("the shortest sub-agent lasted %.3f s, want at least 0.3", dp.GetMin())
			}
		}
	}
	if exploreCount != 3 {
		t.Errorf("atomic.agent.duration counts %d sub-agents, want 3", exploreCount)
	}
	if _, ok := metrics["atomic.agent.errors"]; ok {
		t.Errorf("no agent failed, yet atomic.agent.errors was exported: %v", metrics["atomic.agent.errors"])
	}
}

// checkCallSpans: each of the five model requests (the lead's two, one
// per sub-agent) is a chat span and each task call an execute_tool span,
// under its agent's span, with the GenAI conventions' attributes.
func checkCallSpans(t *testing.T, agents, calls []*tracepb.Span) {
	t.Helper()
	byAgent := map[string]*tracepb.Span{}
	for _, s := range agents {
		byAgent[testkit.Attr(s.Attributes, "gen_ai.agent.id")] = s
	}
	chats, tasks := 0, 0
	for _, s := range calls {
		agent := byAgent[testkit.Attr(s.Attributes, "gen_ai.agent.id")]
		if agent == nil || !bytes.Equal(s.ParentSpanId, agent.SpanId) || !bytes.Equal(s.TraceId, agent.TraceId) {
			t.Errorf("span %s is not under its agent's span", s.Name)
			continue
		}
		switch testkit.Attr(s.Attributes, "gen_ai.operation.name") {
		case "chat":
			chats++
			model := testkit.Attr(s.Attributes, "gen_ai.request.model")
			if s.Name != "chat "+model || model == "" || testkit.Attr(s.Attributes, "gen_ai.provider.name") != "anthropic" ||
				testkit.Attr(s.Attributes, "gen_ai.usage.input_tokens") == "0" || testkit.Attr(s.Attributes, "gen_ai.usage.output_tokens") == "" {
				t.Errorf("chat span %s: %v", s.Name, s.Attributes)
			}
		case "execute_tool":
			tasks++
			if s.Name != "execute_tool task" || testkit.Attr(s.Attributes, "gen_ai.tool.name") != "task" ||
				testkit.Attr(s.Attributes, "gen_ai.tool.call.id") == "" || agent != byAgent["lead"] {
				t.Errorf("tool span %s: %v", s.Name, s.Attributes)
			}
		default:
			t.Errorf("span %s: operation %q", s.Name, testkit.Attr(s.Attributes, "gen_ai.operation.name"))
		}
	}
	if chats != 5 || tasks != 3 {
		t.Errorf("%d chat spans and %d tool spans, want 5 (the lead's 2, a sub-agent's 1 each) and 3 task calls", chats, tasks)
	}
}

func TestWithoutAnOTLPEndpointNothingIsExported(t *testing.T) {
	col := testkit.NewCollector(t)
	// The endpoint's other variables alone start nothing.
	r := runWithEnv(t, threeSubagents, []string{"XDG_STATE_HOME=" + t.TempDir(),
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf", "OTEL_EXPORTER_OTLP_HEADERS=x=" + col.URL()}, "-p", "survey")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	if n := len(col.Spans()); n != 0 || len(col.Metrics()) != 0 {
		t.Errorf("without an OTLP endpoint the collector got %d spans and %d metrics", n, len(col.Metrics()))
	}
}

func TestATracesEndpointAloneExportsTheTraceAndNoMetrics(t *testing.T) {
	col := testkit.NewCollector(t)
	r := runWithEnv(t, threeSubagents, []string{"XDG_STATE_HOME=" + t.TempDir(),
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=" + col.URL() + "/v1/traces"}, "-p", "survey")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	if n := len(col.Spans()); n < 4 || len(col.Metrics()) != 0 {
		t.Errorf("with OTEL_EXPORTER_OTLP_TRACES_ENDPOINT alone the collector got %d spans and %d metrics, want the trace only", n, len(col.Metrics()))
	}
}

func TestStatsOverACorruptStoreCountFromTheLifecycleLogWithAWarning(t *testing.T) {
	state := t.TempDir()
	if r := runWithEnv(t, threeSubagents, []string{"XDG_STATE_HOME=" + state}, "-p", "go"); r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	db := filepath.Join(state, "atomic", store.FileName)
	for _, p := range []string{db, db + "-wal", db + "-shm"} {
		_ = os.Remove(p)
	}
	if err := os.WriteFile(db, bytes.Repeat([]byte("not a database "), 512), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "stats", "--json")
	cmd.Env = []string{"HOME=" + t.TempDir(), "XDG_STATE_HOME=" + state}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("atomic stats over a corrupt store failed: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "warning") || !strings.Contains(stderr.String(), db) || !strings.Contains(stderr.String(), "lifecycle log") {
		t.Errorf("stderr %q: want a warning naming the store and saying the log was read", stderr.String())
	}
	var rows []struct {
		Type   string
		Spawns int
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("atomic stats --json printed %q: %v", out, err)
	}
	spawns := map[string]int{}
	for _, r := range rows {
		spawns[r.Type] += r.Spawns
	}
	if spawns["lead"] != 1 || spawns["general-purpose"] != 3 {
		t.Errorf("rows %+v: want the logged lead and its 3 sub-agents", rows)
	}
}
