package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newRuntime(t *testing.T, scenario string) *runtime.Runtime {
	p, _ := testkit.Model(t, scenario)
	gate, _ := permission.NewGate(permission.Options{})
	rt := runtime.New(runtime.Config{Provider: p, Gate: gate, Workspace: tools.Workspace{Root: t.TempDir()}, CancelOnLeadError: true})
	t.Cleanup(rt.Close)
	return rt
}

func TestJSONResultListsEveryAgentWithItsOutcome(t *testing.T) {
	rt := newRuntime(t, `
rules:
  - {name: final, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "summary"}}
  - name: fan
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "good", prompt: "GOOD"}}
        - {name: task, input: {description: "bad", prompt: "BAD"}}
  - {name: bad, match: {first_user_contains: BAD}, respond: {error: {status: 500, message: "down"}}}
  - {name: good, respond: {text: "fine", usage: {input_tokens: 7, output_tokens: 2}}}
`)
	var out, errb bytes.Buffer
	code := Run(context.Background(), rt, Options{Prompt: "go", OutputFormat: FormatJSON, Model: "test-model"}, Streams{Out: &out, Err: &errb})
	if code != ExitOK {
		t.Fatalf("code %d: %s", code, errb.String())
	}
	var res Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Result != "summary" || res.IsError || res.Subtype != "success" || len(res.Agents) != 2 {
		t.Fatalf("%+v", res)
	}
	good, bad := res.Agents[0], res.Agents[1]
	if good.Status != "completed" || good.Result != "fine" || good.Usage.InputTokens != 7 || good.ID != "general-purpose-1" {
		t.Fatalf("good agent: %+v", good)
	}
	if bad.Status != "error" || !strings.Contains(bad.Error, "500") {
		t.Fatalf("bad agent: %+v", bad)
	}
	if res.Usage.InputTokens < 7 {
		t.Fatalf("total usage %+v", res.Usage)
	}
}

func TestTimeoutStopsTheRunWithAClearMessage(t *testing.T) {
	rt := newRuntime(t, `
rules:
  - {respond: {text: "late", delay_ms: 20000}}
`)
	var out, errb bytes.Buffer
	start := time.Now()
	code := Run(context.Background(), rt, Options{Prompt: "go", Timeout: 200 * time.Millisecond}, Streams{Out: &out, Err: &errb})
	if code != ExitError || !strings.Contains(errb.String(), "--timeout 200ms") {
		t.Fatalf("code %d stderr %q", code, errb.String())
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %s", time.Since(start))
	}
	if strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
		t.Fatalf("reason must be one line: %q", errb.String())
	}
}

func TestTurnLimitFailsTheRunWithErrorMaxTurns(t *testing.T) {
	p, _ := testkit.Model(t, `
rules:
  - respond:
      tool_calls: [{name: ls, input: {path: "."}}]
`)
	gate, _ := permission.NewGate(permission.Options{})
	rt := runtime.New(runtime.Config{Provider: p, Gate: gate, Workspace: tools.Workspace{Root: t.TempDir()}, MaxTurns: 2, CancelOnLeadError: true})
	t.Cleanup(rt.Close)
	var out, errb bytes.Buffer
	code := Run(context.Background(), rt, Options{Prompt: "loop", OutputFormat: FormatJSON}, Streams{Out: &out, Err: &errb})
	var res Result
	json.Unmarshal(out.Bytes(), &res)
	if code != ExitError || res.Subtype != "error_max_turns" || !res.IsError || res.NumTurns != 2 {
		t.Fatalf("code %d result %+v stderr %q", code, res, errb.String())
	}
	if !strings.Contains(errb.String(), "turn limit reached: 2 model turns") {
		t.Fatalf("stderr %q", errb.String())
	}
}
