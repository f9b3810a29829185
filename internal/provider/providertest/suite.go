// Package providertest is a conformance suite for provider.Provider
// implementations that speak a real wire protocol. Each case scripts the
// loopback server (internal/loopback), drives the provider's official SDK
// client against it over HTTP, and checks both what the provider returned
// and what the server saw. The Anthropic and OpenAI packages run it from
// their tests.
package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
)

// Config is what the suite asks a Harness to build a provider from.
type Config struct {
	// BaseURL is the server's host root ("http://127.0.0.1:PORT").
	BaseURL string
	APIKey  string
	Model   string
	Retry   provider.RetryPolicy
	// HTTPClient has its own transport, whose idle connections the suite
	// closes at the end of each case.
	HTTPClient *http.Client
}

// Harness describes the implementation under test.
type Harness struct {
	// API is the wire the provider speaks: loopback.APIAnthropic or
	// loopback.APIOpenAI.
	API string
	// Model is a model whose price and context window are known.
	Model string
	// New builds the provider.
	New func(t *testing.T, cfg Config) provider.Provider
	// CutAfterFirstToolCall is a cut_after_events value that cuts the
	// stream of the suite's two-tool-call answer after the first call is
	// complete and before the second is (it depends on how the API lays
	// out its events).
	CutAfterFirstToolCall int
	// StreamErrorType is a retryable error type the API sends inside a
	// stream (Anthropic "overloaded_error", OpenAI "server_error").
	StreamErrorType string
	// ToolErrorFlag says the wire carries a tool result's is_error flag;
	// without it the result text is expected to start with "Error: ".
	ToolErrorFlag bool
}

// Fast is a retry policy with millisecond waits.
func Fast(attempts int) provider.RetryPolicy {
	return provider.RetryPolicy{MaxAttempts: attempts, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxTotal: 5 * time.Second}
}

// Run runs every case of the suite against h.
func Run(t *testing.T, h Harness) {
	s := suite{h: h}
	t.Run("PlainStreamedAnswer", s.plainStreamedAnswer)
	t.Run("TwoToolCallsInOneMessage", s.twoToolCallsInOneMessage)
	t.Run("FollowUpSendsBothToolResultsPairedWithTheirCalls", s.followUpSendsToolResults)
	t.Run("ToolResultImagesReachTheModelNamingTheirCall", s.toolResultImages)
	t.Run("AUserImageReachesTheModel", s.userImage)
	t.Run("OverloadedThenSuccessIsRetried", s.overloadedThenSuccess)
	t.Run("ErrorEventInStreamIsRetried", s.errorEventInStreamIsRetried)
	t.Run("RateLimitRetryAfterIsHonoured", s.rateLimitRetryAfterHonoured)
	t.Run("UnauthorizedIsNotRetriedAndNamesTheKey", s.unauthorized)
	t.Run("UnknownModelIsNotRetriedAndNamesModelAndBaseURL", s.unknownModel)
	t.Run("ARequestLongerThanTheWindowIsClassifiedTooLongAndNotRetried", s.tooLong)
	t.Run("CutBeforeAnyToolCallIsRetried", s.cutBeforeToolCall)
	t.Run("CutAfterAToolCallEndsTheTurn", s.cutAfterToolCall)
	t.Run("ErrorEventAfterAToolCallEndsTheTurn", s.errorEventAfterToolCall)
	t.Run("MalformedJSONInStreamIsAnError", s.malformedJSON)
	t.Run("ServerErrorsUntilRetriesAreSpent", s.serverErrorsExhaustRetries)
	t.Run("ClosedLocalPortFailsFastNamingTheURL", s.unreachable)
	t.Run("CancelDuringSlowStreamReturnsPromptly", s.cancelDuringSlowStream)
}

type suite struct{ h Harness }

// server starts a loopback server for the scenario in yaml; it is closed
// when the test ends.
func (s suite) server(t *testing.T, yaml string) *loopback.Server {
	t.Helper()
	sc, err := loopback.ParseScenario([]byte(yaml))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	srv := loopback.New(sc)
	if err := srv.Start(); err != nil {
		t.Fatalf("starting loopback server: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// provider builds the provider under test for srv. mutate may adjust the
// config. Its transport's idle connections are closed when the test ends
// (before the server, cleanups run last-in first-out).
func (s suite) provider(t *testing.T, baseURL string, retry provider.RetryPolicy, mutate func(*Config)) provider.Provider {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	cfg := Config{BaseURL: baseURL, APIKey: "test-key", Model: s.h.Model, Retry: retry, HTTPClient: &http.Client{Transport: tr}}
	if mutate != nil {
		mutate(&cfg)
	}
	return s.h.New(t, cfg)
}

// settledLog is the server's log once every request it received has
// finished: a client can give up on a broken stream before the server has
// logged the request that sent it.
func settledLog(t *testing.T, srv *loopback.Server) []loopback.LogEntry {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for srv.InFlight() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the server still has %d requests in flight after 5s", srv.InFlight())
		}
		time.Sleep(time.Millisecond)
	}
	return srv.Log()
}

// recorder keeps the chunks a Stream call emitted.
type recorder struct{ chunks []provider.Chunk }

func (r *recorder) on(c provider.Chunk) { r.chunks = append(r.chunks, c) }

func (r *recorder) kinds(k provider.ChunkKind) []provider.Chunk {
	var out []provider.Chunk
	for _, c := range r.chunks {
		if c.Kind == k {
			out = append(out, c)
		}
	}
	return out
}

func (r *recorder) text() string {
	var b strings.Builder
	for _, c := range r.kinds(provider.ChunkText) {
		b.WriteString(c.Text)
	}
	return b.String()
}

func userText(text string) provider.Message {
	return provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Text: text}}}
}

func ask(text string) provider.Request {
	return provider.Request{System: "You are a test.", Messages: []provider.Message{userText(text)}}
}

var tools = []provider.ToolSpec{
	{Name: "read", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
	{Name: "grep", Description: "Search files.", InputSchema: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]}`)},
}

// twoCalls is the answer with two tool calls used by several cases.
const twoCalls = `
      tool_calls:
        - {name: read, id: call_read_1, input: {path: a.go}}
        - {name: grep, id: call_grep_2, input: {pattern: TODO}}`

func (s suite) plainStreamedAnswer(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: hello
    match: {api: `+s.h.API+`, last_user_contains: "say hello", system_contains: "a test"}
    respond:
      text: "Hello there! This answer arrives in several pieces."
      usage: {input_tokens: 1200, output_tokens: 34}
`)
	p := s.provider(t, srv.URL(), Fast(1), nil)
	var rec recorder
	resp, err := p.Stream(context.Background(), ask("please say hello"), rec.on)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	const want = "Hello there! This answer arrives in several pieces."
	if resp.Text != want {
		t.Errorf("Response.Text = %q, want %q", resp.Text, want)
	}
	if n := len(rec.kinds(provider.ChunkText)); n < 2 {
		t.Errorf("got %d text chunks, want the answer streamed in several", n)
	}
	if rec.text() != want {
		t.Errorf("text chunks add up to %q, want %q", rec.text(), want)
	}
	if len(rec.chunks) != len(rec.kinds(provider.ChunkText)) {
		t.Errorf("chunks other than text were emitted: %+v", rec.chunks)
	}
	if resp.StopReason != provider.StopEndTurn || len(resp.ToolCalls) != 0 {
		t.Errorf("stop %q with %d tool calls, want end_turn and none", resp.StopReason, len(resp.ToolCalls))
	}
	if resp.Model != s.h.Model {
		t.Errorf("Response.Model = %q, want %q", resp.Model, s.h.Model)
	}
	u := resp.Usage
	if u.InputTokens != 1200 || u.OutputTokens != 34 {
		t.Errorf("usage = %d in, %d out; want 1200, 34", u.InputTokens, u.OutputTokens)
	}
	wantCost, _ := provider.Cost(s.h.Model, u)
	if u.CostUSD <= 0 || u.CostUSD != wantCost {
		t.Errorf("usage cost = %v, want %v", u.CostUSD, wantCost)
	}
	if u.ContextWindow != provider.ContextWindow(s.h.Model) || u.ContextWindow == 0 {
		t.Errorf("usage context window = %d, want %d", u.ContextWindow, provider.ContextWindow(s.h.Model))
	}
	log := settledLog(t, srv)
	if len(log) != 1 || !log[0].Stream || log[0].System != "You are a test." || log[0].LastUserText() != "please say hello" {
		t.Errorf("server log = %+v, want one streamed request with the system prompt and the user text", log)
	}
}

func (s suite) twoToolCallsInOneMessage(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: calls
    match: {api: `+s.h.API+`, tools_include: [read, grep]}
    respond:
      text: "Let me look."`+twoCalls+`
`)
	p := s.provider(t, srv.URL(), Fast(1), nil)
	req := ask("find the TODOs")
	req.Tools = tools
	var rec recorder
	resp, err := p.Stream(context.Background(), req, rec.on)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := []provider.ToolCall{
		{ID: "call_read_1", Name: "read", Input: json.RawMessage(`{"path":"a.go"}`)},
		{ID: "call_grep_2", Name: "grep", Input: json.RawMessage(`{"pattern":"TODO"}`)},
	}
	if diff := cmp.Diff(want, resp.ToolCalls, jsonEqual); diff != "" {
		t.Errorf("Response.ToolCalls (-want +got):\n%s", diff)
	}
	var emitted []provider.ToolCall
	for _, c := range rec.kinds(provider.ChunkToolCall) {
		emitted = append(emitted, *c.ToolCall)
	}
	if diff := cmp.Diff(want, emitted, jsonEqual); diff != "" {
		t.Errorf("ChunkToolCall chunks (-want +got):\n%s", diff)
	}
	if resp.Text != "Let me look." || rec.text() != "Let me look." {
		t.Errorf("text = %q (chunks %q), want %q", resp.Text, rec.text(), "Let me look.")
	}
	if last := rec.chunks[len(rec.chunks)-1]; last.Kind != provider.ChunkToolCall {
		t.Errorf("last chunk is %+v, want the second tool call after the text", last)
	}
	if resp.StopReason != provider.StopToolUse {
		t.Errorf("StopReason = %q, want tool_use", resp.StopReason)
	}
	if log := settledLog(t, srv); len(log) != 1 || !cmp.Equal(log[0].Tools, []string{"read", "grep"}) {
		t.Errorf("server saw tools %v, want [read grep]", log[0].Tools)
	}
}

func (s suite) followUpSendsToolResults(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: after-results
    match: {api: `+s.h.API+`, has_tool_results: true, tool_result_contains: "package main"}
    respond: {text: "a.go is a main package and grep failed."}
`)
	p := s.provider(t, srv.URL(), Fast(1), nil)
	req := provider.Request{
		System: "You are a test.",
		Tools:  tools,
		Messages: []provider.Message{
			userText("find the TODOs"),
			{Role: provider.RoleAssistant, Parts: []provider.Part{
				{Text: "Let me look."},
				{ToolCall: &provider.ToolCall{ID: "call_read_1", Name: "read", Input: json.RawMessage(`{"path":"a.go"}`)}},
				{ToolCall: &provider.ToolCall{ID: "call_grep_2", Name: "grep", Input: json.RawMessage(`{"pattern":"TODO"}`)}},
			}},
			{Role: provider.RoleUser, Parts: []provider.Part{
				{ToolResult: &provider.ToolResult{ToolCallID: "call_read_1", Content: "package main"}},
				{ToolResult: &provider.ToolResult{ToolCallID: "call_grep_2", Content: "grep: bad pattern", IsError: true}},
			}},
		},
	}
	resp, err := p.Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.Text != "a.go is a main package and grep failed." {
		t.Errorf("Response.Text = %q", resp.Text)
	}
	log := settledLog(t, srv)
	if len(log) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(log))
	}
	var calls []loopback.LogToolCall
	for _, m := range log[0].Messages {
		if m.Role == "assistant" {
			calls = append(calls, m.ToolCalls...)
		}
	}
	wantCalls := []loopback.LogToolCall{
		{ID: "call_read_1", Name: "read", Input: json.RawMessage(`{"path":"a.go"}`)},
		{ID: "call_grep_2", Name: "grep", Input: json.RawMessage(`{"pattern":"TODO"}`)},
	}
	if diff := cmp.Diff(wantCalls, calls, jsonEqual); diff != "" {
		t.Errorf("assistant tool calls sent back (-want +got):\n%s", diff)
	}
	wantResults := []loopback.LogToolResult{
		{ToolCallID: "call_read_1", Content: "package main"},
		{ToolCallID: "call_grep_2", Content: "grep: bad pattern", IsError: true},
	}
	if !s.h.ToolErrorFlag {
		wantResults[1] = loopback.LogToolResult{ToolCallID: "call_grep_2", Content: "Error: grep: bad pattern"}
	}
	if diff := cmp.Diff(wantResults, log[0].LastToolResults()); diff != "" {
		t.Errorf("tool results sent (-want +got):\n%s", diff)
	}
}

// retriedOnce streams "hi" with three attempts allowed and checks that it
// took exactly one retry (announcing attempt 2) and that only the retried
// attempt's text, want, came back. It returns the recorded chunks and the
// retry chunk for case-specific checks of the error.
func (s suite) retriedOnce(t *testing.T, srv *loopback.Server, want string) (*recorder, provider.Chunk) {
	t.Helper()
	p := s.provider(t, srv.URL(), Fast(3), nil)
	rec := &recorder{}
	resp, err := p.Stream(context.Background(), ask("hi"), rec.on)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.Text != want {
		t.Errorf("Response.Text = %q, want only the retried attempt's text %q", resp.Text, want)
	}
	retries := rec.kinds(provider.ChunkRetry)
	if len(retries) != 1 || retries[0].Attempt != 2 || retries[0].MaxAttempts != 3 {
		t.Fatalf("retry chunks = %+v, want one announcing attempt 2 of 3", retries)
	}
	if d := retries[0].Delay; d <= 0 || d > Fast(3).MaxDelay {
		t.Errorf("retry chunk delay = %v, want the backoff wait, within (0, %v]", d, Fast(3).MaxDelay)
	}
	return rec, retries[0]
}

func (s suite) overloadedThenSuccess(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: flaky
    sequence:
      - error: {status: 529, type: overloaded_error, message: "Overloaded"}
      - text: "made it"
`)
	rec, retry := s.retriedOnce(t, srv, "made it")
	var ae *provider.APIError
	if !errors.As(retry.Err, &ae) || ae.StatusCode != 529 {
		t.Errorf("retry chunk error = %v, want the 529 APIError", retry.Err)
	}
	if retry.Reason != "529 overloaded" {
		t.Errorf("retry reason = %q, want %q", retry.Reason, "529 overloaded")
	}
	if rec.chunks[0].Kind != provider.ChunkRetry {
		t.Errorf("first chunk = %+v, want the retry before any text", rec.chunks[0])
	}
	if n := len(settledLog(t, srv)); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

func (s suite) errorEventInStreamIsRetried(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: flaky
    sequence:
      - text: "partial answer that will be dropped"
        stream_error: {type: `+s.h.StreamErrorType+`, message: "try again"}
      - text: "second answer"
`)
	_, retry := s.retriedOnce(t, srv, "second answer")
	var ae *provider.APIError
	if !errors.As(retry.Err, &ae) || ae.Type != s.h.StreamErrorType || !ae.Retryable() {
		t.Errorf("retry chunk error = %v, want a retryable APIError of type %s", retry.Err, s.h.StreamErrorType)
	}
}

func (s suite) rateLimitRetryAfterHonoured(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: limited
    sequence:
      - error: {status: 429, message: "slow down", retry_after: 1}
      - text: "ok now"
`)
	retry := provider.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Second, MaxTotal: 10 * time.Second}
	p := s.provider(t, srv.URL(), retry, nil)
	var rec recorder
	resp, err := p.Stream(context.Background(), ask("hi"), rec.on)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.Text != "ok now" {
		t.Errorf("Response.Text = %q", resp.Text)
	}
	log := settledLog(t, srv)
	if len(log) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(log))
	}
	if gap := log[1].Start.Sub(log[0].End); gap < 950*time.Millisecond {
		t.Errorf("retried %v after the 429, want at least the 1s retry-after", gap)
	}
	var ae *provider.APIError
	r := rec.kinds(provider.ChunkRetry)
	if len(r) != 1 || !errors.As(r[0].Err, &ae) || ae.RetryAfter != time.Second {
		t.Fatalf("retry chunks = %+v, want one whose APIError has RetryAfter 1s", r)
	}
	if r[0].Delay != time.Second || r[0].Reason != "429 rate limited" || r[0].Attempt != 2 || r[0].MaxAttempts != 3 {
		t.Errorf("retry chunk = attempt %d/%d after %v (%q), want attempt 2/3 after the 1s retry-after (429 rate limited)",
			r[0].Attempt, r[0].MaxAttempts, r[0].Delay, r[0].Reason)
	}
}

func (s suite) unauthorized(t *testing.T) {
	srv := s.server(t, `
api_key: right-key
rules:
  - respond: {text: "never"}
`)
	p := s.provider(t, srv.URL(), Fast(5), func(c *Config) { c.APIKey = "wrong-key" })
	var rec recorder
	_, err := p.Stream(context.Background(), ask("hi"), rec.on)
	var ae *provider.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 401 {
		t.Fatalf("err = %v, want a 401 APIError", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "API key") || strings.Contains(msg, "\n") || strings.Contains(msg, "gave up") {
		t.Errorf("error %q should be one line about the API key, with no retries", msg)
	}
	if n := len(settledLog(t, srv)); n != 1 || len(rec.chunks) != 0 {
		t.Errorf("server saw %d requests and %d chunks were emitted, want 1 and 0", n, len(rec.chunks))
	}
}

func (s suite) unknownModel(t *testing.T) {
	srv := s.server(t, `
models: [`+s.h.Model+`]
rules:
  - respond: {text: "never"}
`)
	p := s.provider(t, srv.URL(), Fast(5), func(c *Config) { c.Model = "no-such-model" })
	_, err := p.Stream(context.Background(), ask("hi"), nil)
	var ae *provider.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 404 {
		t.Fatalf("err = %v, want a 404 APIError", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "model") || !strings.Contains(msg, "base URL") || strings.Contains(msg, "\n") {
		t.Errorf("error %q should be one line naming the model and the base URL", msg)
	}
	if n := len(settledLog(t, srv)); n != 1 {
		t.Errorf("server saw %d requests, want 1 (no retry)", n)
	}
}

func (s suite) cutBeforeToolCall(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: cut-once
    sequence:
      - text: "This first attempt is cut off part way through its text."
        cut_after_events: 3
      - text: "Second attempt, complete."
`)
	_, retry := s.retriedOnce(t, srv, "Second attempt, complete.")
	var se *provider.StreamError
	if !errors.As(retry.Err, &se) || se.AfterToolCall {
		t.Errorf("retry chunk error = %v, want a StreamError before any tool call", retry.Err)
	}
	if retry.Reason != "stream cut" {
		t.Errorf("retry reason = %q, want %q", retry.Reason, "stream cut")
	}
	if log := settledLog(t, srv); len(log) != 2 || !strings.HasPrefix(log[0].Outcome, "cut") {
		t.Errorf("server log = %+v, want a cut request then a retry", log)
	}
}

func (s suite) cutAfterToolCall(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: cut
    respond:
      cut_after_events: `+itoa(s.h.CutAfterFirstToolCall)+twoCalls+`
`)
	p := s.provider(t, srv.URL(), Fast(5), nil)
	req := ask("find the TODOs")
	req.Tools = tools
	var rec recorder
	_, err := p.Stream(context.Background(), req, rec.on)
	var se *provider.StreamError
	if !errors.As(err, &se) || !se.AfterToolCall {
		t.Fatalf("err = %v, want a StreamError after a tool call", err)
	}
	if calls := rec.kinds(provider.ChunkToolCall); len(calls) != 1 || calls[0].ToolCall.ID != "call_read_1" {
		t.Errorf("tool call chunks = %+v, want just the first call", calls)
	}
	if r := rec.kinds(provider.ChunkRetry); len(r) != 0 {
		t.Errorf("retried %d times after a tool call had gone out", len(r))
	}
	if n := len(settledLog(t, srv)); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
	if msg := err.Error(); !strings.Contains(msg, "not retried") || strings.Contains(msg, "\n") {
		t.Errorf("error %q should say in one line that the turn was not retried", msg)
	}
}

func (s suite) errorEventAfterToolCall(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: fails-late
    respond:
      stream_error: {type: `+s.h.StreamErrorType+`, after_events: `+itoa(s.h.CutAfterFirstToolCall)+`}`+twoCalls+`
`)
	p := s.provider(t, srv.URL(), Fast(5), nil)
	req := ask("find the TODOs")
	req.Tools = tools
	var rec recorder
	_, err := p.Stream(context.Background(), req, rec.on)
	var se *provider.StreamError
	var ae *provider.APIError
	if !errors.As(err, &se) || !se.AfterToolCall || !errors.As(err, &ae) || ae.Type != s.h.StreamErrorType {
		t.Fatalf("err = %v, want a StreamError after a tool call wrapping the %s APIError", err, s.h.StreamErrorType)
	}
	if calls := rec.kinds(provider.ChunkToolCall); len(calls) != 1 {
		t.Errorf("tool call chunks = %+v, want just the first call", calls)
	}
	if n, r := len(settledLog(t, srv)), len(rec.kinds(provider.ChunkRetry)); n != 1 || r != 0 {
		t.Errorf("server saw %d requests with %d retries, want 1 and none", n, r)
	}
}

func (s suite) malformedJSON(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: broken
    respond: {text: "this stream carries a broken event in the middle", malformed: true}
`)
	p := s.provider(t, srv.URL(), Fast(2), nil)
	_, err := p.Stream(context.Background(), ask("hi"), nil)
	var se *provider.StreamError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a StreamError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "gave up after 2 attempts") || strings.Contains(msg, "\n") {
		t.Errorf("error %q should name the attempts in one line", msg)
	}
	if n := len(settledLog(t, srv)); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

func (s suite) serverErrorsExhaustRetries(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: down
    respond: {error: {status: 500, message: "internal failure"}}
`)
	p := s.provider(t, srv.URL(), Fast(3), nil)
	var rec recorder
	_, err := p.Stream(context.Background(), ask("hi"), rec.on)
	var ae *provider.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 500 {
		t.Fatalf("err = %v, want a 500 APIError", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "gave up after 3 attempts") || !strings.Contains(msg, "internal failure") || strings.Contains(msg, "\n") {
		t.Errorf("error %q should name the attempts and the server's message in one line", msg)
	}
	if n, r := len(settledLog(t, srv)), len(rec.kinds(provider.ChunkRetry)); n != 3 || r != 2 {
		t.Errorf("server saw %d requests with %d retry chunks, want 3 and 2", n, r)
	}
}

// unreachable points the provider, with the default retry policy, at a
// closed local port: it must fail after at most one quick retry, naming the
// URL, well within the 2s bound (the policy allows about 200ms).
func (s suite) unreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	p := s.provider(t, "http://"+addr, provider.RetryPolicy{}, nil)
	var rec recorder
	start := time.Now()
	_, err = p.Stream(context.Background(), ask("hi"), rec.on)
	elapsed := time.Since(start)
	var ce *provider.ConnError
	if !errors.As(err, &ce) || !ce.Refused() {
		t.Fatalf("err = %v, want a refused ConnError", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "cannot connect to http://"+addr+"/") || !strings.Contains(msg, "(connection refused): is the server running?") {
		t.Errorf("error %q should name the URL under http://%s/ and ask whether the server is running", msg, addr)
	}
	r := rec.kinds(provider.ChunkRetry)
	if len(r) != 1 {
		t.Fatalf("retry chunks = %d, want 1 quick retry", len(r))
	}
	if r[0].Attempt != 2 || r[0].MaxAttempts != 2 || r[0].Reason != "connection refused" || r[0].Delay > 250*time.Millisecond {
		t.Errorf("retry chunk = attempt %d/%d after %v (%q), want 2/2 within 250ms, connection refused",
			r[0].Attempt, r[0].MaxAttempts, r[0].Delay, r[0].Reason)
	}
	if elapsed > 2*time.Second {
		t.Errorf("the error took %v, want well under 2s for a dead local endpoint", elapsed)
	}
}

func (s suite) cancelDuringSlowStream(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: slow
    respond:
      text: "This answer is streamed very slowly, one small piece at a time, far too slowly to wait for."
      chunk_delay_ms: 300
`)
	p := s.provider(t, srv.URL(), Fast(5), nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled time.Time
	var texts int
	_, err := p.Stream(ctx, ask("hi"), func(c provider.Chunk) {
		if c.Kind == provider.ChunkText {
			texts++
			if texts == 1 {
				cancelled = time.Now()
				cancel()
			}
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if cancelled.IsZero() {
		t.Fatal("no text arrived before the cancel")
	}
	if d := time.Since(cancelled); d > 250*time.Millisecond {
		t.Errorf("Stream returned %v after the cancel, want promptly (well under the 300ms chunk delay)", d)
	}
	if texts != 1 {
		t.Errorf("%d text chunks arrived, want none after the cancel", texts)
	}
	if n := len(settledLog(t, srv)); n > 1 {
		t.Errorf("server saw %d requests, want no retry after a cancel", n)
	}
}

// jsonEqual compares raw JSON by meaning, not bytes.
var jsonEqual = cmp.Comparer(func(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return cmp.Equal(x, y)
})

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// toolResultImages sends a tool result with two images beside one without
// and checks the model got both pictures, byte for byte, tied to the
// call that returned them: inside its tool result where the API allows
// it, else in a user message after the tool messages that names the call.
func (s suite) toolResultImages(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: saw-images
    match: {api: `+s.h.API+`, tool_result_has_image: true, tool_result_contains: "two screenshots"}
    respond: {text: "I see them."}
`)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	jpeg := []byte("\xff\xd8\xff\xe0\x00\x10JFIF")
	p := s.provider(t, srv.URL(), Fast(1), nil)
	req := provider.Request{
		Tools: tools,
		Messages: []provider.Message{
			userText("show me the page"),
			{Role: provider.RoleAssistant, Parts: []provider.Part{
				{ToolCall: &provider.ToolCall{ID: "call_shot_1", Name: "read", Input: json.RawMessage(`{"path":"page"}`)}},
				{ToolCall: &provider.ToolCall{ID: "call_grep_2", Name: "grep", Input: json.RawMessage(`{"pattern":"x"}`)}},
			}},
			{Role: provider.RoleUser, Parts: []provider.Part{
				{ToolResult: &provider.ToolResult{ToolCallID: "call_shot_1", Content: "two screenshots", Images: []provider.Image{
					{MediaType: "image/png", Data: png}, {MediaType: "image/jpeg", Data: jpeg}}}},
				{ToolResult: &provider.ToolResult{ToolCallID: "call_grep_2", Content: "no match"}},
			}},
		},
	}
	resp, err := p.Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.Text != "I see them." {
		t.Fatalf("Response.Text = %q; the server did not see the images", resp.Text)
	}
	log := settledLog(t, srv)
	want := []loopback.LogImage{{MediaType: "image/png", Data: png}, {MediaType: "image/jpeg", Data: jpeg}}
	var got []loopback.LogImage
	for _, r := range log[0].LastToolResults() {
		if r.ToolCallID == "call_shot_1" {
			got = append(got, r.Images...)
		} else if len(r.Images) > 0 {
			t.Errorf("tool result %s carries images %v it did not return", r.ToolCallID, r.Images)
		}
	}
	if got == nil {
		// Not inside the tool result: then in a user message after the
		// tool messages that names the call.
		msgs := log[0].Messages
		last := msgs[len(msgs)-1]
		if last.Role != "user" || !strings.Contains(last.Text, "call_shot_1") {
			t.Fatalf("last message %+v; want the images in a user message naming call_shot_1", last)
		}
		got = last.Images
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("images the model got (-want +got):\n%s", diff)
	}
}

// userImage sends a user message of text, a PNG and more text and checks
// the model got the picture byte for byte in that user message, with both
// texts.
func (s suite) userImage(t *testing.T) {
	srv := s.server(t, `
rules:
  - name: saw-image
    match: {api: `+s.h.API+`, last_user_contains: "what is in"}
    respond: {text: "A red dot."}
`)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
	p := s.provider(t, srv.URL(), Fast(1), nil)
	req := provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{
		{Text: "what is in"},
		{Image: &provider.Image{MediaType: "image/png", Data: png}},
		{Text: "this picture?"},
	}}}}
	resp, err := p.Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.Text != "A red dot." {
		t.Fatalf("Response.Text = %q; want the scripted answer", resp.Text)
	}
	log := settledLog(t, srv)
	if len(log) != 1 || len(log[0].Messages) != 1 {
		t.Fatalf("server log %+v; want one request with one message", log)
	}
	got := log[0].Messages[0]
	if got.Role != "user" || !strings.Contains(got.Text, "what is in") || !strings.Contains(got.Text, "this picture?") {
		t.Errorf("message = role %q text %q; want the user's two texts", got.Role, got.Text)
	}
	want := []loopback.LogImage{{MediaType: "image/png", Data: png}}
	if diff := cmp.Diff(want, got.Images); diff != "" {
		t.Errorf("images the model got (-want +got):\n%s", diff)
	}
}
