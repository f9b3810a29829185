package loopback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

func newOpenAI(s *Server, opts ...ooption.RequestOption) *openai.Client {
	c := openAIClient(s, testKey, opts...)
	return &c
}

func openAIParams(model string, msgs ...openai.ChatCompletionMessageParamUnion) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: shared.ChatModel(model), Messages: msgs}
}

func openAITool(name string) openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: name, Parameters: shared.FunctionParameters{"type": "object"}})
}

// openAIStream runs a streaming request through the SDK accumulator and
// returns it, the content and tool-argument delta counts, the tool calls
// the accumulator reported as just finished, and the stream error.
func openAIStream(ctx context.Context, c *openai.Client, p openai.ChatCompletionNewParams) (*openai.ChatCompletionAccumulator, int, int, []openai.FinishedChatCompletionToolCall, error) {
	stream := c.Chat.Completions.NewStreaming(ctx, p)
	defer stream.Close()
	acc := &openai.ChatCompletionAccumulator{}
	contentDeltas, argDeltas := 0, 0
	var finished []openai.FinishedChatCompletionToolCall
	for stream.Next() {
		chunk := stream.Current()
		if !acc.AddChunk(chunk) {
			return acc, contentDeltas, argDeltas, finished, fmt.Errorf("accumulator refused chunk %s", chunk.RawJSON())
		}
		if tc, ok := acc.JustFinishedToolCall(); ok {
			finished = append(finished, tc)
		}
		for _, ch := range chunk.Choices {
			if ch.Delta.Content != "" {
				contentDeltas++
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Function.Arguments != "" {
					argDeltas++
				}
			}
		}
	}
	return acc, contentDeltas, argDeltas, finished, stream.Err()
}

func TestOpenAINonStreamingText(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "Hello there!", Usage: &Usage{InputTokens: 10, OutputTokens: 5}}}}})
	resp, err := newOpenAI(s).Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage("hello")))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 || resp.Choices[0].Message.Content != "Hello there!" || resp.Choices[0].FinishReason != "stop" {
		t.Fatalf("choices = %+v", resp.Choices)
	}
	if resp.Usage.PromptTokens != 10 || resp.Usage.CompletionTokens != 5 || resp.Usage.TotalTokens != 15 || resp.Model != "gpt-x" {
		t.Errorf("usage = %+v model %q", resp.Usage, resp.Model)
	}
}

func TestOpenAIStreamingTextWithUsageChunk(t *testing.T) {
	text := "The quick brown fox jumps over the lazy dog, twice."
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: text, Usage: &Usage{InputTokens: 7, OutputTokens: 3}}}}})
	p := openAIParams("gpt-x", openai.UserMessage("hello"))
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	acc, contentDeltas, _, _, err := openAIStream(context.Background(), newOpenAI(s), p)
	if err != nil {
		t.Fatal(err)
	}
	if contentDeltas < 2 {
		t.Errorf("content arrived in %d deltas, want several", contentDeltas)
	}
	if got := acc.Choices[0].Message.Content; got != text {
		t.Errorf("accumulated content = %q", got)
	}
	if acc.Choices[0].FinishReason != "stop" || acc.Choices[0].Message.Role != "assistant" {
		t.Errorf("finish %q role %q", acc.Choices[0].FinishReason, acc.Choices[0].Message.Role)
	}
	if acc.Usage.PromptTokens != 7 || acc.Usage.CompletionTokens != 3 {
		t.Errorf("usage = %+v, want the usage chunk's 7/3", acc.Usage)
	}
	// Without include_usage there is no usage chunk.
	acc, _, _, _, err = openAIStream(context.Background(), newOpenAI(s), openAIParams("gpt-x", openai.UserMessage("hello")))
	if err != nil || acc.Usage.TotalTokens != 0 {
		t.Errorf("without include_usage: usage %+v err %v", acc.Usage, err)
	}
}

func TestOpenAIStreamAssemblesTwoToolCallsAndLogsBothResults(t *testing.T) {
	sc := &Scenario{Rules: []Rule{
		{Name: "after-tools", Match: Match{API: APIOpenAI, HasToolResults: ptr(true), ToolResultContains: "go.mod"}, Respond: &Response{Text: "Both done."}},
		{Name: "plan", Match: Match{API: APIOpenAI, SystemContains: "helpful", ToolsInclude: []string{"bash"}, ToolsExclude: []string{"task"}}, Respond: &Response{
			ToolCalls: []ToolCall{
				{Name: "bash", Input: map[string]any{"command": "ls -la"}},
				{Name: "read", Input: map[string]any{"path": "README.md", "limit": 20}},
			},
		}},
	}}
	s := startServer(t, sc)
	c := newOpenAI(s)
	p := openAIParams("gpt-x", openai.SystemMessage("You are helpful."), openai.UserMessage("list files"))
	p.Tools = []openai.ChatCompletionToolUnionParam{openAITool("bash"), openAITool("read")}
	acc, _, argDeltas, finished, err := openAIStream(context.Background(), c, p)
	if err != nil {
		t.Fatal(err)
	}
	msg := acc.Choices[0].Message
	if acc.Choices[0].FinishReason != "tool_calls" || len(msg.ToolCalls) != 2 || msg.Content != "" {
		t.Fatalf("finish %q message %+v", acc.Choices[0].FinishReason, msg)
	}
	if argDeltas < 4 {
		t.Errorf("arguments arrived in %d deltas, want several per call", argDeltas)
	}
	if len(finished) != 2 || finished[0].Name != "bash" || finished[1].Name != "read" {
		t.Errorf("JustFinishedToolCall reported %+v", finished)
	}
	wantArgs := []map[string]any{{"command": "ls -la"}, {"path": "README.md", "limit": float64(20)}}
	for i, name := range []string{"bash", "read"} {
		tc := msg.ToolCalls[i]
		if tc.Function.Name != name || tc.Type != "function" || !strings.HasPrefix(tc.ID, "call_") {
			t.Errorf("tool call %d = %+v", i, tc)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(tc.Function.Arguments), &got); err != nil {
			t.Fatalf("tool call %d arguments %q: %v", i, tc.Function.Arguments, err)
		}
		if diff := cmp.Diff(wantArgs[i], got); diff != "" {
			t.Errorf("tool call %d arguments (-want +got):\n%s", i, diff)
		}
	}
	if msg.ToolCalls[0].ID == msg.ToolCalls[1].ID {
		t.Errorf("tool call ids not unique: %s", msg.ToolCalls[0].ID)
	}

	p.Messages = append(p.Messages, msg.ToParam(),
		openai.ToolMessage("main.go\ngo.mod", msg.ToolCalls[0].ID),
		openai.ToolMessage("# readme", msg.ToolCalls[1].ID),
	)
	acc, _, _, _, err = openAIStream(context.Background(), c, p)
	if err != nil || acc.Choices[0].Message.Content != "Both done." {
		t.Fatalf("follow-up: %v %+v", err, acc.Choices)
	}
	log := s.Log()
	if len(log) != 2 || log[0].Rule != "plan" || log[1].Rule != "after-tools" {
		t.Fatalf("log = %+v", log)
	}
	want := []LogToolResult{
		{ToolCallID: msg.ToolCalls[0].ID, Content: "main.go\ngo.mod"},
		{ToolCallID: msg.ToolCalls[1].ID, Content: "# readme"},
	}
	if diff := cmp.Diff(want, log[1].LastToolResults()); diff != "" {
		t.Errorf("tool results sent back (-want +got):\n%s", diff)
	}
	if log[1].System != "You are helpful." || log[1].LastUserText() != "list files" {
		t.Errorf("logged system %q, last user text %q", log[1].System, log[1].LastUserText())
	}
}

func TestOpenAINonStreamingToolCalls(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{ToolCalls: []ToolCall{
		{Name: "bash", ID: "call_fixed", Input: map[string]any{"command": "pwd"}},
		{Name: "bash", Input: map[string]any{"command": "date"}},
	}}}}})
	resp, err := newOpenAI(s).Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage("go")))
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Choices[0].Message.ToolCalls
	if len(calls) != 2 || calls[0].ID != "call_fixed" || calls[1].Function.Arguments != `{"command":"date"}` || resp.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("choice = %+v", resp.Choices[0])
	}
}

func TestOpenAIStopReasonTranslated(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "trunc", StopReason: "max_tokens"}}}})
	acc, _, _, _, err := openAIStream(context.Background(), newOpenAI(s), openAIParams("gpt-x", openai.UserMessage("go")))
	if err != nil || acc.Choices[0].FinishReason != "length" {
		t.Fatalf("finish = %q, %v; want length", acc.Choices[0].FinishReason, err)
	}
}

func TestOpenAISequenceRateLimitedThenSuccess(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Name: "flaky", Sequence: []Response{
		{Error: &ErrorSpec{Status: 429, Message: "Rate limit reached", RetryAfter: 2}},
		{Text: "recovered"},
	}}}})
	c := newOpenAI(s)
	_, err := c.Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage("hi")))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want *openai.Error", err)
	}
	if apiErr.StatusCode != 429 || apiErr.Code != "rate_limit_exceeded" || apiErr.Message != "Rate limit reached" {
		t.Errorf("error = status %d code %q message %q", apiErr.StatusCode, apiErr.Code, apiErr.Message)
	}
	if got := apiErr.Response.Header.Get("retry-after"); got != "2" {
		t.Errorf("retry-after = %q, want 2", got)
	}
	resp, err := c.Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage("hi")))
	if err != nil || resp.Choices[0].Message.Content != "recovered" {
		t.Fatalf("second request: %v", err)
	}
	// The SDK's own retry honours retry-after-ms.
	s2 := startServer(t, &Scenario{Rules: []Rule{{Sequence: []Response{{Error: &ErrorSpec{Status: 503, RetryAfterMS: 10}}, {Text: "ok"}}}}})
	resp, err = newOpenAI(s2, ooption.WithMaxRetries(1)).Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage("hi")))
	if err != nil || resp.Choices[0].Message.Content != "ok" || len(s2.Log()) != 2 {
		t.Fatalf("retried request: %v, log %+v", err, s2.Log())
	}
}

func TestOpenAIWrongKeyGets401(t *testing.T) {
	s := startServer(t, &Scenario{APIKey: testKey, Rules: []Rule{{Respond: &Response{Text: "hi"}}}})
	c := openAIClient(s, "sk-wrong-key")
	_, err := c.Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage("hi")))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Code != "invalid_api_key" {
		t.Fatalf("err = %v, want 401 invalid_api_key", err)
	}
	if strings.Contains(apiErr.Message, "sk-wrong-key") {
		t.Errorf("error message leaks the key: %q", apiErr.Message)
	}
	if _, err := newOpenAI(s).Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage("hi"))); err != nil {
		t.Errorf("right key: %v", err)
	}
}

func TestOpenAIUnknownModelGets404(t *testing.T) {
	s := startServer(t, &Scenario{Models: []string{"gpt-x"}, Rules: []Rule{{Respond: &Response{Text: "hi"}}}})
	_, err := newOpenAI(s).Chat.Completions.New(context.Background(), openAIParams("gpt-nope", openai.UserMessage("hi")))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Code != "model_not_found" || !strings.Contains(apiErr.Message, "gpt-nope") {
		t.Fatalf("err = %v, want 404 model_not_found", err)
	}
}

func TestOpenAICutStreamIsAStreamError(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "this answer never finishes properly", CutAfterEvents: 2}}}})
	acc, _, _, _, err := openAIStream(context.Background(), newOpenAI(s), openAIParams("gpt-x", openai.UserMessage("hi")))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want unexpected EOF", err)
	}
	if len(acc.Choices) > 0 && acc.Choices[0].FinishReason != "" {
		t.Errorf("cut stream reached its finish chunk: %+v", acc.Choices)
	}
	// A non-streaming answer cut mid-body is an error too.
	if _, err := newOpenAI(s).Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage("hi"))); err == nil {
		t.Error("body cut mid-way gave no error")
	}
}

func TestOpenAIMalformedChunkIsAnError(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "some text here", Malformed: true}}}})
	_, _, _, _, err := openAIStream(context.Background(), newOpenAI(s), openAIParams("gpt-x", openai.UserMessage("hi")))
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		t.Fatalf("err = %v, want a JSON syntax error", err)
	}
}

func TestOpenAIInStreamError(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "partial answer that stops", StreamError: &StreamError{Type: "server_error", Message: "boom mid-stream"}}}}})
	acc, contentDeltas, _, _, err := openAIStream(context.Background(), newOpenAI(s), openAIParams("gpt-x", openai.UserMessage("hi")))
	if err == nil || !strings.Contains(err.Error(), "boom mid-stream") {
		t.Fatalf("err = %v, want the in-stream error", err)
	}
	if contentDeltas != 1 || acc.Choices[0].Message.Content == "" {
		t.Errorf("want the first content delta before the error; got %d", contentDeltas)
	}
}

func TestOpenAIRejectsMissingToolMessages(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "hi"}}}})
	asst := openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ChatCompletionMessageToolCallUnion{
		{ID: "call_a", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "bash", Arguments: "{}"}},
		{ID: "call_b", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "bash", Arguments: "{}"}},
	}}
	p := openAIParams("gpt-x", openai.UserMessage("hi"), asst.ToParam(), openai.ToolMessage("ok", "call_a"), openai.UserMessage("next"))
	_, err := newOpenAI(s).Chat.Completions.New(context.Background(), p)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Message, "call_b") {
		t.Fatalf("err = %v, want 400 naming call_b", err)
	}
	p = openAIParams("gpt-x", openai.UserMessage("hi"), openai.ToolMessage("ok", "call_zzz"))
	_, err = newOpenAI(s).Chat.Completions.New(context.Background(), p)
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Message, "role 'tool'") {
		t.Fatalf("err = %v, want 400 about a stray tool message", err)
	}
}

func TestOpenAIDelayEndsWhenClientCancels(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{DelayMS: 30_000, Text: "late"}}}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, _, _, err := openAIStream(ctx, newOpenAI(s), openAIParams("gpt-x", openai.UserMessage("hi")))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if e := waitForLog(t, s, 1)[0]; e.Outcome != "client disconnected" || e.Duration() > 5*time.Second {
		t.Errorf("log = %+v", e)
	}
}

func TestOpenAIConcurrentStreamsOverlapInLog(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Name: "slow", Respond: &Response{ChunkDelayMS: 50, Text: "several chunks of streamed text here"}}}})
	c := newOpenAI(s)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			_, _, _, _, err := openAIStream(context.Background(), c, openAIParams("gpt-x", openai.UserMessage("hi")))
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
	if got := MaxConcurrent(s.Log()); got != 4 {
		t.Errorf("MaxConcurrent = %d, want 4", got)
	}
}
