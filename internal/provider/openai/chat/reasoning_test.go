package chat

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/providertest"
)

func loopbackProvider(t *testing.T, yaml string) (*Provider, *loopback.Server) {
	t.Helper()
	clearEnv(t)
	sc, err := loopback.ParseScenario([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	srv := loopback.New(sc)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	p, err := New(Config{APIKey: "k", BaseURL: srv.URL() + "/v1", Model: "gpt-5", HTTPClient: &http.Client{Transport: tr}, Retry: providertest.Fast(1)})
	if err != nil {
		t.Fatal(err)
	}
	return p, srv
}

func TestEachEffortIsSentAsReasoningEffortThroughAToolLoop(t *testing.T) {
	p, srv := loopbackProvider(t, `
rules:
  - name: done
    match: {has_tool_results: true}
    respond: {text: "Done.", thinking: "The listing is in."}
  - name: plan
    respond:
      thinking: "I should list the files first."
      tool_calls: [{name: bash, input: {command: ls}}]
`)
	tools := []provider.ToolSpec{{Name: "bash", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}}
	for _, e := range provider.Efforts {
		user := provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Text: "list the files"}}}
		first, err := p.Stream(context.Background(), provider.Request{Messages: []provider.Message{user}, Tools: tools, Effort: e}, nil)
		if err != nil || len(first.ToolCalls) != 1 {
			t.Fatalf("%s: first turn %+v, %v", e, first, err)
		}
		result := provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{ToolResult: &provider.ToolResult{ToolCallID: first.ToolCalls[0].ID, Content: "go.mod"}}}}
		done, err := p.Stream(context.Background(), provider.Request{Messages: []provider.Message{user, first.Message(), result}, Tools: tools, Effort: e}, nil)
		if err != nil || done.Text != "Done." {
			t.Fatalf("%s: second turn %+v, %v", e, done, err)
		}
		// The reasoning is billed as output; Chat Completions hands none of
		// it back, so nothing is kept to return.
		if min := int64(loopback.EstimateTokens(len("The listing is in."))); done.Usage.OutputTokens <= min || len(done.Thinking) != 0 {
			t.Errorf("%s: output tokens %d (reasoning alone is %d), thinking %+v", e, done.Usage.OutputTokens, min, done.Thinking)
		}
	}
	want := []string{"low", "low", "medium", "medium", "high", "high", "high", "high"} // max as high
	for i, e := range srv.Log() {
		if e.ReasoningEffort != want[i] || e.Status != 200 {
			t.Errorf("request %d: reasoning_effort %q, status %d; want %q", i, e.ReasoningEffort, e.Status, want[i])
		}
	}
}

func TestNoEffortSendsNoReasoningEffort(t *testing.T) {
	p, srv := loopbackProvider(t, "rules:\n  - respond: {text: ok, thinking: hm}\n")
	if _, err := p.Stream(context.Background(), hi(), nil); err != nil {
		t.Fatal(err)
	}
	if e := srv.Log()[0].ReasoningEffort; e != "" {
		t.Errorf("reasoning_effort %q sent without an effort", e)
	}
}

func TestStreamedReasoningOfOtherServersIsThinkingNotText(t *testing.T) {
	p := compatServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w,
			`{"id":"c1","object":"chat.completion.chunk","model":"deepseek-r1","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Hmm, "}}]}`,
			`{"id":"c1","object":"chat.completion.chunk","model":"deepseek-r1","choices":[{"index":0,"delta":{"reasoning":"greet back."}}]}`,
			`{"id":"c1","object":"chat.completion.chunk","model":"deepseek-r1","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":"stop"}]}`,
			`[DONE]`)
	})
	var thinking, text []string
	resp, err := p.Stream(context.Background(), hi(), func(c provider.Chunk) {
		switch c.Kind {
		case provider.ChunkThinking:
			thinking = append(thinking, c.Text)
		case provider.ChunkText:
			text = append(text, c.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(thinking, ""); got != "Hmm, greet back." || resp.Text != "Hello" || strings.Join(text, "") != "Hello" {
		t.Errorf("thinking %q, text %q / %q", got, text, resp.Text)
	}
}
