package native

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/anthropic"
	openai "github.com/atomic-agent/atomic/internal/provider/openai/chat"
	"github.com/atomic-agent/atomic/internal/testkit"
)

// sdkProvider starts a loopback server for scenario and returns the real
// provider of api (official SDK client) pointed at it.
func sdkProvider(t *testing.T, api, scenario string, retry provider.RetryPolicy) provider.Provider {
	t.Helper()
	srv := testkit.Loopback(t, scenario)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections) // before the server closes
	client := &http.Client{Transport: tr}
	var p provider.Provider
	var err error
	switch api {
	case loopback.APIAnthropic:
		p, err = anthropic.New(anthropic.Config{APIKey: "k", BaseURL: srv.URL(), Model: "claude-sonnet-4-5", Retry: retry, HTTPClient: client})
	case loopback.APIOpenAI:
		p, err = openai.New(openai.Config{APIKey: "k", BaseURL: srv.URL(), Model: "gpt-4.1", Retry: retry, HTTPClient: client})
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEachRetryIsAnnouncedAsARetryEventOfTheAgentThatAsked runs a session
// through each official SDK against a server answering 529 overloaded, then
// 429 with retry-after-ms, then the answer, and checks the retry events:
// their fields, their order among the deltas, and that they carry the
// asking agent's identity.
func TestEachRetryIsAnnouncedAsARetryEventOfTheAgentThatAsked(t *testing.T) {
	const scenario = `
rules:
  - name: flaky
    sequence:
      - error: {status: 529, type: overloaded_error, message: "Overloaded"}
      - error: {status: 429, type: rate_limit_error, message: "slow down", retry_after_ms: 40}
      - text: "made it"
`
	for _, api := range []string{loopback.APIAnthropic, loopback.APIOpenAI} {
		t.Run(api, func(t *testing.T) {
			retry := provider.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: time.Second, MaxTotal: 10 * time.Second}
			rec := &recorder{}
			s := New(Config{
				SessionID: "sess-explore-1", ID: "explore-1", ParentID: "lead", Name: "explore",
				Provider: sdkProvider(t, api, scenario, retry), Sink: rec,
			})
			res, err := s.Run(context.Background(), "hi")
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Text != "made it" {
				t.Errorf("final text = %q, want %q", res.Text, "made it")
			}
			retries := rec.of(event.Retry)
			if len(retries) != 2 {
				t.Fatalf("got %d retry events, want 2", len(retries))
			}
			want := []event.RetryData{
				{Attempt: 2, MaxAttempts: 4, Reason: "529 overloaded"},
				{Attempt: 3, MaxAttempts: 4, DelayMS: 40, Reason: "429 rate limited"},
			}
			for i, e := range retries {
				if e.AgentID != "explore-1" || e.SessionID != "sess-explore-1" || e.ParentAgentID != "lead" {
					t.Errorf("retry %d names agent %q session %q parent %q, want explore-1, sess-explore-1, lead", i, e.AgentID, e.SessionID, e.ParentAgentID)
				}
				d, ok := event.Payload[event.RetryData](e.Data)
				if !ok {
					t.Fatalf("retry %d data is %T", i, e.Data)
				}
				if d.Attempt != want[i].Attempt || d.MaxAttempts != want[i].MaxAttempts || d.Reason != want[i].Reason {
					t.Errorf("retry %d = attempt %d/%d (%q), want %d/%d (%q)", i, d.Attempt, d.MaxAttempts, d.Reason,
						want[i].Attempt, want[i].MaxAttempts, want[i].Reason)
				}
				if d.Error == "" {
					t.Errorf("retry %d carries no error text", i)
				}
			}
			first, _ := event.Payload[event.RetryData](retries[0].Data)
			if first.DelayMS < 0 || first.DelayMS > 1 {
				t.Errorf("first retry delay_ms = %d, want the backoff of at most 1ms", first.DelayMS)
			}
			second, _ := event.Payload[event.RetryData](retries[1].Data)
			if second.DelayMS != 40 {
				t.Errorf("second retry delay_ms = %d, want the server's retry-after-ms of 40", second.DelayMS)
			}
			line, err := json.Marshal(retries[1])
			if err != nil {
				t.Fatal(err)
			}
			var wire struct {
				Type string         `json:"type"`
				Data map[string]any `json:"data"`
			}
			if err := json.Unmarshal(line, &wire); err != nil {
				t.Fatal(err)
			}
			if wire.Type != "retry" || wire.Data["attempt"] != 3.0 || wire.Data["max_attempts"] != 4.0 ||
				wire.Data["delay_ms"] != 40.0 || wire.Data["reason"] != "429 rate limited" {
				t.Errorf("stream-json line = %s, want type retry with attempt, max_attempts, delay_ms, reason", line)
			}
		})
	}
}
