package loopback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
)

// errorBody decodes an SDK error's raw JSON body.
func errorBody(t *testing.T, raw string) map[string]any {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal([]byte(raw), &body); err != nil {
		t.Fatalf("error body %q: %v", raw, err)
	}
	return body
}

func TestAnthropicRequestOverTheWindowIsRefusedAsPromptTooLongWithoutUsingARule(t *testing.T) {
	s := startServer(t, &Scenario{ContextWindow: 300, Rules: []Rule{{Times: 1, Respond: &Response{Text: "fits"}}}})
	c := newAnthropic(s)
	_, err := c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser(strings.Repeat("x", 4000))))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
		t.Fatalf("err = %v, want a 400 *anthropic.Error", err)
	}
	refused := s.Log()[0]
	want := fmt.Sprintf("prompt is too long: %d tokens > 300 maximum", refused.InputTokens)
	body := errorBody(t, apiErr.RawJSON())
	detail, _ := body["error"].(map[string]any)
	if body["type"] != "error" || detail["type"] != "invalid_request_error" || detail["message"] != want {
		t.Errorf("body = %s, want invalid_request_error %q", apiErr.RawJSON(), want)
	}
	if refused.Outcome != "context window exceeded" || refused.Status != 400 || refused.ContextWindow != 300 ||
		refused.InputTokens != EstimateTokens(refused.Bytes) || refused.InputTokens <= 300 {
		t.Errorf("refused entry = %+v", refused)
	}
	// The refusal did not use up the rule: a request that fits gets it.
	msg, err := c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("short")))
	if err != nil || msg.Content[0].Text != "fits" {
		t.Fatalf("fitting request: %v %+v", err, msg)
	}
	if got := s.Log()[1]; got.InputTokens > 300 || got.InputTokens != int(msg.Usage.InputTokens) {
		t.Errorf("fitting entry input_tokens %d, usage %d", got.InputTokens, msg.Usage.InputTokens)
	}
}

func TestOpenAIChatRequestOverTheWindowIsRefusedAsContextLengthExceeded(t *testing.T) {
	s := startServer(t, &Scenario{ContextWindow: 200, Rules: []Rule{{Respond: &Response{Text: "fits"}}}})
	_, err := newOpenAI(s).Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage(strings.Repeat("y", 2000))))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
		t.Fatalf("err = %v, want a 400 *openai.Error", err)
	}
	tokens := s.Log()[0].InputTokens
	want := fmt.Sprintf("This model's maximum context length is 200 tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", tokens)
	if apiErr.Code != "context_length_exceeded" || apiErr.Type != "invalid_request_error" || apiErr.Param != "messages" || apiErr.Message != want {
		t.Errorf("error = %s, want context_length_exceeded %q", apiErr.RawJSON(), want)
	}
}

func TestResponsesRequestOverTheWindowIsRefusedAsContextLengthExceeded(t *testing.T) {
	s := startServer(t, &Scenario{ContextWindow: 200, Rules: []Rule{{Respond: &Response{Text: "fits"}}}})
	_, err := newResponses(s).New(context.Background(), responsesParams("gpt-x", strings.Repeat("z", 2000)))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
		t.Fatalf("err = %v, want a 400 *openai.Error", err)
	}
	if apiErr.Code != "context_length_exceeded" || apiErr.Param != "input" || apiErr.Type != "invalid_request_error" ||
		apiErr.Message != "Your input exceeds the context window of this model. Please adjust your input and try again." {
		t.Errorf("error = %s", apiErr.RawJSON())
	}
}

func TestContextWindowsPerModelOverrideTheScenarioWindow(t *testing.T) {
	s := startServer(t, &Scenario{ContextWindow: 100, ContextWindows: map[string]int{"claude-big": 100000},
		Rules: []Rule{{Respond: &Response{Text: "ok"}}}})
	c := newAnthropic(s)
	long := anthropicUser(strings.Repeat("w", 2000))
	if _, err := c.Messages.New(context.Background(), anthropicParams("claude-big", long)); err != nil {
		t.Fatalf("big-window model: %v", err)
	}
	if _, err := c.Messages.New(context.Background(), anthropicParams("claude-small", long)); err == nil {
		t.Fatal("small-window model accepted an over-long request")
	}
	entries := s.Log()
	if entries[0].ContextWindow != 100000 || entries[1].ContextWindow != 100 {
		t.Errorf("windows = %d, %d", entries[0].ContextWindow, entries[1].ContextWindow)
	}
	if got := MaxInputTokens(entries); got != max(entries[0].InputTokens, entries[1].InputTokens) || got <= 100 {
		t.Errorf("MaxInputTokens = %d, entries %d/%d", got, entries[0].InputTokens, entries[1].InputTokens)
	}
}

func TestWithoutAWindowLongRequestsAreAnswered(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "ok"}}}})
	if _, err := newAnthropic(s).Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser(strings.Repeat("v", 1<<20)))); err != nil {
		t.Fatal(err)
	}
	if e := s.Log()[0]; e.ContextWindow != 0 || e.InputTokens < 1<<18 {
		t.Errorf("entry = window %d input %d", e.ContextWindow, e.InputTokens)
	}
}

func TestScenarioReadsWindowAndCacheFieldsAndRefusesBadOnes(t *testing.T) {
	sc, err := ParseScenario([]byte("context_window: 200000\ncontext_windows: {gpt-x: 128000}\ncache_min_tokens: 2048\nrules:\n- respond: {text: hi, thinking: hmm}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.ContextWindow != 200000 || sc.ContextWindows["gpt-x"] != 128000 || sc.CacheMinTokens != 2048 || sc.Rules[0].Respond.Thinking != "hmm" {
		t.Errorf("scenario = %+v", sc)
	}
	for yaml, want := range map[string]string{
		"context_window: -1\nrules: []":                   "context_window: -1 is negative",
		"context_windows: {m: 0}\nrules: []":              `context_windows["m"]: 0 is not a positive window`,
		"context_windows: {m: lots}\nrules: []":           `context_windows["m"]: want a whole number`,
		"cache_min_tokens: -5\nrules: []":                 "cache_min_tokens: -5 is negative",
		"rules:\n- respond: {thinking: [a]}":              "want a string",
		"context_window: 10\ncontext_windw: 1\nrules: []": `unknown field "context_windw"`,
	} {
		if _, err := ParseScenario([]byte(yaml)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", yaml, err, want)
		}
	}
}
