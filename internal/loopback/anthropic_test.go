package loopback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/google/go-cmp/cmp"
)

func anthropicParams(model string, msgs ...anthropic.MessageParam) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 1024, Messages: msgs}
}

func anthropicUser(text string) anthropic.MessageParam {
	return anthropic.NewUserMessage(anthropic.NewTextBlock(text))
}

func anthropicTool(name string) anthropic.ToolUnionParam {
	return anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
		Name:        name,
		InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{}},
	}}
}

// anthropicStream runs a streaming request and returns the accumulated
// message, the number of text and input_json deltas, and the stream error.
func anthropicStream(ctx context.Context, c anthropic.Client, p anthropic.MessageNewParams) (anthropic.Message, int, int, error) {
	stream := c.Messages.NewStreaming(ctx, p)
	defer stream.Close()
	var msg anthropic.Message
	textDeltas, jsonDeltas := 0, 0
	for stream.Next() {
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return msg, textDeltas, jsonDeltas, fmt.Errorf("Accumulate(%s): %w", ev.Type, err)
		}
		if ev.Type == "content_block_delta" {
			switch ev.Delta.Type {
			case "text_delta":
				textDeltas++
			case "input_json_delta":
				if ev.Delta.PartialJSON != "" {
					jsonDeltas++
				}
			}
		}
	}
	return msg, textDeltas, jsonDeltas, stream.Err()
}

func TestAnthropicNonStreamingText(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Name: "hi", Respond: &Response{Text: "Hello there!", Usage: &Usage{InputTokens: 10, OutputTokens: 5}}}}})
	c := anthropicClient(s, testKey)
	msg, err := c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("hello")))
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Type != "text" || msg.Content[0].Text != "Hello there!" {
		t.Fatalf("content = %+v, want one text block", msg.Content)
	}
	if msg.StopReason != anthropic.StopReasonEndTurn || msg.Role != "assistant" || string(msg.Model) != "claude-x" {
		t.Errorf("stop=%q role=%q model=%q", msg.StopReason, msg.Role, msg.Model)
	}
	if msg.Usage.InputTokens != 10 || msg.Usage.OutputTokens != 5 {
		t.Errorf("usage = %+v, want 10/5", msg.Usage)
	}
	if !strings.HasPrefix(msg.ID, "msg_") {
		t.Errorf("id = %q, want msg_ prefix", msg.ID)
	}
}

func TestAnthropicStreamingTextArrivesInSeveralDeltas(t *testing.T) {
	text := "The quick brown fox jumps over the lazy dog, twice."
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: text}}}})
	msg, textDeltas, _, err := anthropicStream(context.Background(), anthropicClient(s, testKey), anthropicParams("claude-x", anthropicUser("hello")))
	if err != nil {
		t.Fatal(err)
	}
	if textDeltas < 2 {
		t.Errorf("text arrived in %d deltas, want several", textDeltas)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != text {
		t.Fatalf("accumulated content = %+v, want %q", msg.Content, text)
	}
	if msg.StopReason != anthropic.StopReasonEndTurn {
		t.Errorf("stop reason = %q", msg.StopReason)
	}
	if msg.Usage.InputTokens < 1 || msg.Usage.OutputTokens < 1 {
		t.Errorf("derived usage = %+v, want positive counts", msg.Usage)
	}
	e := s.Log()[0]
	if !e.Stream || e.Status != 200 || e.Rule != "rule[0]" || e.Outcome != "" {
		t.Errorf("log entry = %+v", e)
	}
}

func TestAnthropicStreamAssemblesTwoToolCallsAndLogsBothResults(t *testing.T) {
	sc := &Scenario{Rules: []Rule{
		{
			Name:    "after-tools",
			Match:   Match{HasToolResults: ptr(true), ToolResultContains: "main.go"},
			Respond: &Response{Text: "Both done."},
		},
		{
			Name:  "plan",
			Match: Match{LastUserContains: "list", ToolsInclude: []string{"bash", "read"}, HasToolResults: ptr(false)},
			Respond: &Response{
				Text: "Let me look.",
				ToolCalls: []ToolCall{
					{Name: "bash", Input: map[string]any{"command": "ls -la", "timeout": 30}},
					{Name: "read", Input: map[string]any{"path": "README.md", "nested": map[string]any{"a": []any{1, "two"}}}},
				},
			},
		},
	}}
	s := startServer(t, sc)
	c := anthropicClient(s, testKey)
	params := anthropicParams("claude-x", anthropicUser("please list files"))
	params.Tools = []anthropic.ToolUnionParam{anthropicTool("bash"), anthropicTool("read")}

	msg, _, jsonDeltas, err := anthropicStream(context.Background(), c, params)
	if err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != anthropic.StopReasonToolUse {
		t.Errorf("stop reason = %q, want tool_use", msg.StopReason)
	}
	if len(msg.Content) != 3 {
		t.Fatalf("content has %d blocks, want text + 2 tool_use: %+v", len(msg.Content), msg.Content)
	}
	if jsonDeltas < 4 {
		t.Errorf("tool input arrived in %d input_json deltas, want several per call", jsonDeltas)
	}
	wantInputs := []map[string]any{
		{"command": "ls -la", "timeout": float64(30)},
		{"path": "README.md", "nested": map[string]any{"a": []any{float64(1), "two"}}},
	}
	ids := map[string]bool{}
	for i, name := range []string{"bash", "read"} {
		b := msg.Content[i+1]
		if b.Type != "tool_use" || b.Name != name || !strings.HasPrefix(b.ID, "toolu_") {
			t.Errorf("block %d = %+v, want tool_use %s", i+1, b, name)
		}
		ids[b.ID] = true
		var got map[string]any
		if err := json.Unmarshal(b.Input, &got); err != nil {
			t.Fatalf("block %d input %s: %v", i+1, b.Input, err)
		}
		if diff := cmp.Diff(wantInputs[i], got); diff != "" {
			t.Errorf("block %d input (-want +got):\n%s", i+1, diff)
		}
	}
	if len(ids) != 2 {
		t.Errorf("tool ids not unique: %v", ids)
	}

	// The client runs both tools and sends both results back.
	params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(
		anthropic.NewToolResultBlock(msg.Content[1].ID, "main.go\ngo.mod", false),
		anthropic.NewToolResultBlock(msg.Content[2].ID, "no such file", true),
	))
	msg2, _, _, err := anthropicStream(context.Background(), c, params)
	if err != nil {
		t.Fatal(err)
	}
	if msg2.Content[0].Text != "Both done." {
		t.Errorf("follow-up answer = %+v", msg2.Content)
	}
	log := s.Log()
	if len(log) != 2 || log[0].Rule != "plan" || log[1].Rule != "after-tools" {
		t.Fatalf("log rules = %+v", log)
	}
	want := []LogToolResult{
		{ToolCallID: msg.Content[1].ID, Content: "main.go\ngo.mod"},
		{ToolCallID: msg.Content[2].ID, Content: "no such file", IsError: true},
	}
	if diff := cmp.Diff(want, log[1].LastToolResults()); diff != "" {
		t.Errorf("tool results sent back (-want +got):\n%s", diff)
	}
	calls := log[1].Messages[1].ToolCalls
	if len(calls) != 2 || calls[0].Name != "bash" || string(calls[0].Input) != `{"command":"ls -la","timeout":30}` {
		t.Errorf("logged assistant tool calls = %+v", calls)
	}
	if log[1].LastUserText() != "please list files" || diffStrings(log[1].Tools, []string{"bash", "read"}) {
		t.Errorf("logged last user text %q, tools %v", log[1].LastUserText(), log[1].Tools)
	}
}

func diffStrings(a, b []string) bool { return cmp.Diff(a, b) != "" }

func TestAnthropicNonStreamingToolCallsKeepFixedID(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{ToolCalls: []ToolCall{
		{Name: "bash", ID: "toolu_fixed", Input: map[string]any{"command": "pwd"}},
		{Name: "bash", Input: map[string]any{"command": "date"}},
	}}}}})
	msg, err := newAnthropic(s).Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("go")))
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 2 || msg.Content[0].ID != "toolu_fixed" || msg.Content[1].ID == "" || msg.Content[1].ID == "toolu_fixed" {
		t.Fatalf("content = %+v", msg.Content)
	}
	if string(msg.Content[1].Input) != `{"command":"date"}` || msg.StopReason != anthropic.StopReasonToolUse {
		t.Errorf("input %s stop %q", msg.Content[1].Input, msg.StopReason)
	}
}

func TestAnthropicSequenceOverloadedThenSuccess(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Name: "flaky", Sequence: []Response{
		{Error: &ErrorSpec{Status: 529, Type: "overloaded_error", Message: "Overloaded", RetryAfter: 1}},
		{Text: "recovered"},
	}}}})
	c := anthropicClient(s, testKey)
	p := anthropicParams("claude-x", anthropicUser("hi"))
	_, err := c.Messages.New(context.Background(), p)
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("first request error = %v, want *anthropic.Error", err)
	}
	if apiErr.StatusCode != 529 || apiErr.Type() != "overloaded_error" {
		t.Errorf("status %d type %q, want 529 overloaded_error", apiErr.StatusCode, apiErr.Type())
	}
	if got := apiErr.Response.Header.Get("retry-after"); got != "1" {
		t.Errorf("retry-after = %q, want 1", got)
	}
	if !strings.Contains(apiErr.RawJSON(), `"message":"Overloaded"`) {
		t.Errorf("error body = %s", apiErr.RawJSON())
	}
	for range 2 { // the last entry repeats
		msg, err := c.Messages.New(context.Background(), p)
		if err != nil || msg.Content[0].Text != "recovered" {
			t.Fatalf("later request: %v %+v", err, msg)
		}
	}
	log := ByRule(s.Log(), "flaky")
	if len(log) != 3 || log[0].Status != 529 || log[1].Status != 200 {
		t.Errorf("log = %+v", log)
	}
}

func TestAnthropicSDKRetriesHonouringRetryAfterMS(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Name: "flaky", Sequence: []Response{
		{Error: &ErrorSpec{Status: 429, RetryAfterMS: 20}},
		{Text: "ok"},
	}}}})
	c := anthropicClient(s, testKey, aoption.WithMaxRetries(1))
	msg, err := c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("hi")))
	if err != nil || msg.Content[0].Text != "ok" {
		t.Fatalf("New = %+v, %v", msg, err)
	}
	log := s.Log()
	if len(log) != 2 || log[0].Status != 429 {
		t.Fatalf("log = %+v", log)
	}
	if gap := log[1].Start.Sub(log[0].End); gap < 15*time.Millisecond {
		t.Errorf("retry came %v after the 429, want about retry-after-ms 20ms", gap)
	}
}

func TestAnthropicWrongKeyGets401(t *testing.T) {
	s := startServer(t, &Scenario{APIKey: testKey, Rules: []Rule{{Respond: &Response{Text: "hi"}}}})
	for _, key := range []string{"wrong", ""} {
		c := anthropicClient(s, key)
		_, err := c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("hi")))
		var apiErr *anthropic.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Type() != "authentication_error" {
			t.Errorf("key %q: error = %v, want 401 authentication_error", key, err)
		}
	}
	if _, err := newAnthropic(s).Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("hi"))); err != nil {
		t.Errorf("right key: %v", err)
	}
	// Claude Code's ANTHROPIC_AUTH_TOKEN sends a bearer token instead.
	c := anthropic.NewClient(aoption.WithoutEnvironmentDefaults(), aoption.WithBaseURL(s.URL()), aoption.WithAuthToken(testKey), aoption.WithMaxRetries(0))
	if _, err := c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("hi"))); err != nil {
		t.Errorf("bearer token: %v", err)
	}
}

func TestAnthropicUnknownModelGets404(t *testing.T) {
	s := startServer(t, &Scenario{Models: []string{"claude-x"}, Rules: []Rule{{Respond: &Response{Text: "hi"}}}})
	_, err := newAnthropic(s).Messages.New(context.Background(), anthropicParams("claude-nope", anthropicUser("hi")))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Type() != "not_found_error" || !strings.Contains(apiErr.RawJSON(), "claude-nope") {
		t.Fatalf("error = %v, want 404 not_found_error naming the model", err)
	}
	if e := s.Log()[0]; e.Outcome != "unknown model" || e.Model != "claude-nope" {
		t.Errorf("log = %+v", e)
	}
}

func TestAnthropicCutStreamIsAStreamError(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "this answer never finishes properly", CutAfterEvents: 4}}}})
	msg, _, _, err := anthropicStream(context.Background(), anthropicClient(s, testKey), anthropicParams("claude-x", anthropicUser("hi")))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut stream error = %v, want unexpected EOF; message %+v", err, msg)
	}
	if msg.StopReason != "" {
		t.Errorf("a cut stream reached message_delta: %+v", msg)
	}
	if e := s.Log()[0]; e.Outcome != "cut after 4 events" {
		t.Errorf("log outcome = %q", e.Outcome)
	}
}

func TestAnthropicMalformedEventIsAnError(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "some text here", Malformed: true}}}})
	_, _, _, err := anthropicStream(context.Background(), anthropicClient(s, testKey), anthropicParams("claude-x", anthropicUser("hi")))
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		t.Fatalf("err = %v, want a JSON syntax error", err)
	}
	// Non-streaming gets a broken body.
	if _, err := newAnthropic(s).Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("hi"))); err == nil {
		t.Error("non-streaming malformed body gave no error")
	}
}

func TestAnthropicInStreamErrorEvent(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{
		Text:        "partial answer that stops",
		StreamError: &StreamError{Type: "overloaded_error", Message: "Overloaded mid-stream"},
	}}}})
	msg, textDeltas, _, err := anthropicStream(context.Background(), anthropicClient(s, testKey), anthropicParams("claude-x", anthropicUser("hi")))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.Type() != "overloaded_error" || !strings.Contains(apiErr.RawJSON(), "Overloaded mid-stream") {
		t.Fatalf("err = %v, want in-stream overloaded_error", err)
	}
	if textDeltas != 1 || msg.Content[0].Text == "" {
		t.Errorf("want exactly the first text delta before the error, got %d deltas, %+v", textDeltas, msg.Content)
	}
	// Non-streaming gets it as an HTTP error with the matching status.
	_, err = newAnthropic(s).Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("hi")))
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 529 {
		t.Errorf("non-streaming err = %v, want 529", err)
	}
}

func TestAnthropicRejectsToolResultWithoutToolUse(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "hi"}}}})
	c := anthropicClient(s, testKey)
	p := anthropicParams("claude-x",
		anthropicUser("hi"),
		anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_a", map[string]any{}, "bash"), anthropic.NewToolUseBlock("toolu_b", map[string]any{}, "bash")),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_a", "ok", false)),
	)
	_, err := c.Messages.New(context.Background(), p)
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.RawJSON(), "toolu_b") {
		t.Fatalf("missing tool_result: err = %v, want 400 naming toolu_b", err)
	}
	p.Messages[2] = anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_a", "ok", false), anthropic.NewToolResultBlock("toolu_b", "ok", false), anthropic.NewToolResultBlock("toolu_zzz", "ok", false))
	_, err = c.Messages.New(context.Background(), p)
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.RawJSON(), "toolu_zzz") {
		t.Fatalf("stray tool_result: err = %v, want 400 naming toolu_zzz", err)
	}
}

func TestAnthropicNoRuleMatchedQuotesLastUserText(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Match: Match{LastUserContains: "xyzzy"}, Respond: &Response{Text: "hi"}}}})
	_, err := newAnthropic(s).Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("what is up")))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || !strings.Contains(apiErr.RawJSON(), `no rule matched`) || !strings.Contains(apiErr.RawJSON(), `what is up`) {
		t.Fatalf("err = %v, want 500 naming the unmatched text", err)
	}
	if e := s.Log()[0]; e.Rule != "" || e.Outcome != "no rule matched" {
		t.Errorf("log = %+v", e)
	}
}

func TestAnthropicDelayEndsWhenClientCancels(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{DelayMS: 30_000, Text: "late"}}}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := newAnthropic(s).Messages.New(ctx, anthropicParams("claude-x", anthropicUser("hi")))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	e := waitForLog(t, s, 1)[0]
	if e.Outcome != "client disconnected" || e.Status != 0 || e.Duration() > 5*time.Second {
		t.Errorf("log = %+v, want a handler that ended at once", e)
	}
}

func TestAnthropicChunkDelayEndsWhenClientCancels(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{ChunkDelayMS: 30_000, Text: "slow stream"}}}})
	ctx, cancel := context.WithCancel(context.Background())
	stream := newAnthropic(s).Messages.NewStreaming(ctx, anthropicParams("claude-x", anthropicUser("hi")))
	if !stream.Next() || stream.Current().Type != "message_start" {
		t.Fatalf("first event: %v", stream.Err())
	}
	cancel()
	stream.Close()
	e := waitForLog(t, s, 1)[0]
	if e.Outcome != "client disconnected" || e.Duration() > 5*time.Second {
		t.Errorf("log = %+v", e)
	}
}

func TestAnthropicConcurrentRequestsOverlapInLog(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Name: "slow", Respond: &Response{DelayMS: 300, Text: "done"}}}})
	c := anthropicClient(s, testKey)
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Go(func() {
			_, err := c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("hi")))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := MaxConcurrent(ByRule(s.Log(), "slow")); got != 3 {
		t.Errorf("MaxConcurrent = %d, want 3", got)
	}
	// Requests one after another do not overlap.
	s2 := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "done"}}}})
	c2 := anthropicClient(s2, testKey)
	for range 3 {
		if _, err := c2.Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("hi"))); err != nil {
			t.Fatal(err)
		}
	}
	if got := MaxConcurrent(s2.Log()); got != 1 {
		t.Errorf("sequential MaxConcurrent = %d, want 1", got)
	}
}

func TestUnknownEndpointIsLoggedAs404(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "hi"}}}})
	// A base URL that already ends in /v1 makes the Anthropic SDK call /v1/v1/messages.
	c := anthropic.NewClient(aoption.WithoutEnvironmentDefaults(), aoption.WithBaseURL(s.URL()+"/v1"), aoption.WithAPIKey(testKey), aoption.WithMaxRetries(0))
	_, err := c.Messages.New(context.Background(), anthropicParams("claude-x", anthropicUser("hi")))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound || !strings.Contains(apiErr.RawJSON(), "/v1/v1/messages") {
		t.Fatalf("err = %v, want 404 naming the path", err)
	}
	if e := s.Log()[0]; e.API != "" || e.Path != "/v1/v1/messages" || e.Status != 404 {
		t.Errorf("log = %+v", e)
	}
}

// newAnthropic is anthropicClient with the test key, as a pointer so calls chain.
func newAnthropic(s *Server) *anthropic.Client {
	c := anthropicClient(s, testKey)
	return &c
}
