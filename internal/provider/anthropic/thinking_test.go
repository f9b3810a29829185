package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/providertest"
)

// thinkingLoop is a model that thinks, calls bash, and answers once the
// result is in.
const thinkingLoop = `
rules:
  - name: done
    match: {has_tool_results: true}
    respond: {text: "Done.", thinking: "The listing is in."}
  - name: plan
    respond:
      thinking: "I should list the files first."
      tool_calls: [{name: bash, input: {command: ls}}]
`

func loopbackProvider(t *testing.T, yaml string) (*Provider, *loopback.Server) {
	t.Helper()
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
	p, err := New(Config{APIKey: "k", BaseURL: srv.URL(), Model: "claude-sonnet-4-5", HTTPClient: &http.Client{Transport: tr}, Retry: providertest.Fast(1)})
	if err != nil {
		t.Fatal(err)
	}
	return p, srv
}

var bashTool = []provider.ToolSpec{{Name: "bash", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}}

// firstTurn runs the tool loop's first request at effort e and returns
// the history the second one sends: the assistant turn as the provider
// made it, and the tool's result.
func firstTurn(t *testing.T, p *Provider, e provider.Effort) ([]provider.Message, []string) {
	t.Helper()
	user := provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Text: "list the files"}}}
	var thought []string
	resp, err := p.Stream(context.Background(), provider.Request{Messages: []provider.Message{user}, Tools: bashTool, Effort: e}, func(c provider.Chunk) {
		if c.Kind == provider.ChunkThinking {
			thought = append(thought, c.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 {
		t.Fatalf("response = %+v, want a tool call", resp)
	}
	result := provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{ToolResult: &provider.ToolResult{ToolCallID: resp.ToolCalls[0].ID, Content: "go.mod"}}}}
	return []provider.Message{user, resp.Message(), result}, thought
}

func TestThinkingBlocksGoBackSignedAndUnchangedThroughAToolLoop(t *testing.T) {
	p, srv := loopbackProvider(t, thinkingLoop)
	history, thought := firstTurn(t, p, provider.EffortLow)
	if got := strings.Join(thought, ""); got != "I should list the files first." || len(thought) < 2 {
		t.Errorf("thinking streamed as %q, want the block's text in pieces", thought)
	}
	first := history[1].Parts[0].Thinking
	if first == nil || first.Text != "I should list the files first." || first.Signature == "" {
		t.Fatalf("assistant turn = %+v, want the signed thinking block first", history[1].Parts)
	}
	resp, err := p.Stream(context.Background(), provider.Request{Messages: history, Tools: bashTool, Effort: provider.EffortLow}, nil)
	if err != nil {
		t.Fatalf("the tool loop's second request was refused: %v", err)
	}
	if resp.Text != "Done." || len(resp.Thinking) != 1 || resp.Thinking[0].Text != "The listing is in." {
		t.Errorf("answer = text %q, thinking %+v: the thinking must stay out of the text", resp.Text, resp.Thinking)
	}
	log := srv.Log()
	if log[0].ThinkingBudget != 2048 || log[1].ThinkingReturned != 1 || log[1].Rule != "done" {
		t.Errorf("log = budget %d, returned %d, rule %q", log[0].ThinkingBudget, log[1].ThinkingReturned, log[1].Rule)
	}
}

func TestAChangedOrDroppedThinkingBlockIsRefusedByTheAPI(t *testing.T) {
	p, _ := loopbackProvider(t, thinkingLoop)
	for name, tc := range map[string]struct {
		change func([]provider.Message)
		want   string
	}{
		"changed text":      {func(h []provider.Message) { h[1].Parts[0].Thinking.Text += " (edited)" }, "Invalid `signature` in `thinking` block"},
		"changed signature": {func(h []provider.Message) { h[1].Parts[0].Thinking.Signature = "AAAA" }, "Invalid `signature` in `thinking` block"},
		"dropped":           {func(h []provider.Message) { h[1].Parts = h[1].Parts[1:] }, "a final `assistant` message must start with a thinking block"},
	} {
		history, _ := firstTurn(t, p, provider.EffortLow)
		tc.change(history)
		_, err := p.Stream(context.Background(), provider.Request{Messages: history, Tools: bashTool, Effort: provider.EffortLow}, nil)
		var apiErr *provider.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want a 400 saying %q", name, err, tc.want)
		}
	}
}

func TestEachEffortSendsItsBudgetBelowMaxTokens(t *testing.T) {
	p, err := New(Config{APIKey: "k", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		effort            provider.Effort
		budget, maxTokens int64
	}{
		{provider.EffortNone, 0, DefaultMaxTokens},
		{provider.EffortLow, 2048, 2048 + thinkingRoom},
		{provider.EffortMedium, 8192, 8192 + thinkingRoom},
		{provider.EffortHigh, 16384, 16384 + thinkingRoom},
		{provider.EffortMax, 24000, 32000},
	} {
		params, err := p.params(provider.Request{Effort: tc.effort})
		if err != nil {
			t.Fatal(err)
		}
		var budget int64
		if params.Thinking.OfEnabled != nil {
			budget = params.Thinking.OfEnabled.BudgetTokens
		}
		if budget != tc.budget || params.MaxTokens != tc.maxTokens {
			t.Errorf("%q: budget %d, max_tokens %d; want %d, %d", tc.effort, budget, params.MaxTokens, tc.budget, tc.maxTokens)
		}
	}
	// A configured limit is the answer's room beside the budget.
	p, _ = New(Config{APIKey: "k", Model: "m", MaxTokens: 1000})
	if params, _ := p.params(provider.Request{Effort: provider.EffortLow}); params.MaxTokens != 3048 {
		t.Errorf("max_tokens with a 1000 limit at low = %d, want 3048", params.MaxTokens)
	}
}

func TestEveryEffortIsAcceptedByTheAPIsRules(t *testing.T) {
	p, srv := loopbackProvider(t, "rules:\n  - respond: {text: ok, thinking: hm}\n")
	for _, e := range provider.Efforts {
		if _, err := p.Stream(context.Background(), provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "hi"}}}}, Effort: e}, nil); err != nil {
			t.Errorf("effort %s: %v", e, err)
		}
	}
	for i, e := range srv.Log() {
		if e.ThinkingBudget != ThinkingBudget(provider.Efforts[i]) {
			t.Errorf("request %d: budget %d, want %d", i, e.ThinkingBudget, ThinkingBudget(provider.Efforts[i]))
		}
	}
}

func TestARedactedThinkingBlockGoesBackAsItCame(t *testing.T) {
	var second []byte
	calls := 0
	p := compatProvider(t, func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 2 {
			second, _ = io.ReadAll(r.Body)
			writeEvents(w, sseEvent{"message_start", messageStart},
				sseEvent{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
				sseEvent{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`},
				sseEvent{"content_block_stop", `{"type":"content_block_stop","index":0}`},
				sseEvent{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}`},
				sseEvent{"message_stop", `{"type":"message_stop"}`})
			return
		}
		writeEvents(w, sseEvent{"message_start", messageStart},
			sseEvent{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}}`},
			sseEvent{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			sseEvent{"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"bash","input":{}}}`},
			sseEvent{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\":\"ls\"}"}}`},
			sseEvent{"content_block_stop", `{"type":"content_block_stop","index":1}`},
			sseEvent{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}`},
			sseEvent{"message_stop", `{"type":"message_stop"}`})
	})
	history, _ := firstTurn(t, p, provider.EffortHigh)
	if _, err := p.Stream(context.Background(), provider.Request{Messages: history, Tools: bashTool, Effort: provider.EffortHigh}, nil); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(second, &body); err != nil {
		t.Fatal(err)
	}
	if got := body.Messages[1].Content[0]; got["type"] != "redacted_thinking" || got["data"] != "EmwKAhgBEgy3va3pzix/LafPsn4a" {
		t.Errorf("the assistant turn went back starting with %v, want the redacted block as it came", got)
	}
}
