package native

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
	openai "github.com/atomic-agent/atomic/internal/provider/openai/chat"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

const thinkingLoop = `
rules:
  - name: done
    match: {has_tool_results: true}
    respond: {text: "Done.", thinking: "The probe answered."}
  - name: plan
    respond:
      thinking: "I should call the probe first."
      tool_calls: [{name: look, input: {key: a}}]
`

func TestAThinkingToolLoopStreamsThinkingDeltasAndSendsTheBlocksBack(t *testing.T) {
	p, srv := testkit.Model(t, thinkingLoop)
	rec := &recorder{}
	s := New(Config{ID: "lead", Provider: p, Tools: tools.NewSet(&probe{name: "look", kind: tools.ReadOnly}), Sink: rec, Effort: provider.EffortMedium})
	res, err := s.Run(context.Background(), "go")
	if err != nil || res.Text != "Done." {
		t.Fatalf("res %+v, err %v", res, err)
	}
	var thought strings.Builder
	for _, e := range rec.of(event.ThinkingDelta) {
		thought.WriteString(e.Data.(event.ThinkingDeltaData).Text)
	}
	if got := thought.String(); got != "I should call the probe first.The probe answered." {
		t.Errorf("thinking.delta carried %q", got)
	}
	for _, e := range append(rec.of(event.MessageDelta), rec.of(event.MessageComplete)...) {
		if text := e.Data; strings.Contains(strings.ToLower(fmtData(text)), "probe") {
			t.Errorf("%s carries thinking text: %+v", e.Type, text)
		}
	}
	log := srv.Log()
	if len(log) != 2 || log[0].ThinkingBudget != 8192 || log[1].ThinkingReturned != 1 || log[1].Status != 200 {
		t.Fatalf("log: %d requests, budget %d, returned %d, status %d", len(log), log[0].ThinkingBudget, log[1].ThinkingReturned, log[1].Status)
	}
	// The history keeps both turns' thinking, for the next request and a
	// resumed session.
	h := s.History()
	if h[1].Parts[0].Thinking == nil || h[1].Parts[0].Thinking.Signature == "" || h[3].Parts[0].Thinking == nil {
		t.Errorf("history = %+v", h)
	}
	// A later turn carries the earlier blocks back as they were.
	if _, err := s.Run(context.Background(), "again"); err != nil {
		t.Fatalf("next turn with the kept thinking: %v", err)
	}
}

func fmtData(d any) string {
	switch v := d.(type) {
	case event.MessageDeltaData:
		return v.Text
	case event.MessageCompleteData:
		return v.Text
	}
	return ""
}

func TestAnOpenAIToolLoopAsksForTheReasoningEffort(t *testing.T) {
	srv := testkit.Loopback(t, thinkingLoop)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	p, err := openai.New(openai.Config{APIKey: "k", BaseURL: srv.URL(), Model: "gpt-5", HTTPClient: &http.Client{Transport: tr},
		Retry: provider.RetryPolicy{MaxAttempts: 1, BaseDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{ID: "lead", Provider: p, Tools: tools.NewSet(&probe{name: "look", kind: tools.ReadOnly}), Effort: provider.EffortMax})
	if res, err := s.Run(context.Background(), "go"); err != nil || res.Text != "Done." {
		t.Fatalf("res %+v, err %v", res, err)
	}
	for i, e := range srv.Log() {
		if e.ReasoningEffort != "high" {
			t.Errorf("request %d: reasoning_effort %q, want high (max)", i, e.ReasoningEffort)
		}
	}
}
