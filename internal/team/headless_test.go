package team_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/headless"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/team"
)

func TestHeadlessRunEndsAfterTheTeamAndListsTeammates(t *testing.T) {
	rules := append(reportingMate("ann", 100), reportingMate("bob", 100)...)
	first := calls(call("team_create", map[string]any{"name": "t"}), spawnCall("ann"), spawnCall("bob"))
	rules = append(rules, leadRules(first, []string{"ann", "bob"}, "Both reported.")...)
	rt, _ := newRuntime(t, rules, 0)
	defer rt.Close()

	var out, errOut bytes.Buffer
	code := headless.Run(context.Background(), rt, headless.Options{Prompt: "Build it.", OutputFormat: headless.FormatJSON, Timeout: 10 * time.Second},
		headless.Streams{Out: &out, Err: &errOut})
	if code != headless.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	var res headless.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("result %q: %v", out.String(), err)
	}
	if res.Result != "Both reported." || len(res.Teammates) != 2 {
		t.Fatalf("result = %+v", res)
	}
	for _, tm := range res.Teammates {
		if tm.Status != string(team.Shutdown) || tm.Role != "worker" {
			t.Errorf("teammate %+v, want a shut-down worker", tm)
		}
	}
}

func TestHeadlessTimeoutStopsAWaitingTeamWithAClearMessage(t *testing.T) {
	rules := []loopback.Rule{{Name: "ann-slow", Match: loopback.Match{SystemContains: mateSystem("ann")},
		Respond: &loopback.Response{DelayMS: 30000, Text: "never"}}}
	first := calls(call("team_create", map[string]any{"name": "t"}), spawnCall("ann"))
	rules = append(rules, leadRules(first, nil, "unused")...)
	rt, _ := newRuntime(t, rules, 0)
	defer rt.Close()

	var out, errOut bytes.Buffer
	began := time.Now()
	code := headless.Run(context.Background(), rt, headless.Options{Prompt: "Build it.", OutputFormat: headless.FormatJSON, Timeout: 300 * time.Millisecond},
		headless.Streams{Out: &out, Err: &errOut})
	if code == headless.ExitOK || !strings.Contains(errOut.String(), "timeout: the run exceeded --timeout 300ms") {
		t.Fatalf("exit %d, stderr %q: want a failure naming the timeout", code, errOut.String())
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("the timed-out run took %s to end", d)
	}
	var res headless.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("result %q: %v", out.String(), err)
	}
	if len(res.Teammates) != 1 || res.Teammates[0].Status != string(team.Interrupted) {
		t.Errorf("teammates = %+v, want ann interrupted", res.Teammates)
	}
}
