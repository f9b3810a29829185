package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/providertest"
)

func encodeTestRequest() provider.Request {
	return provider.Request{
		System: "You are <a> sub-agent & you answer: 日本語 \"quoted\"",
		Messages: []provider.Message{
			{Role: provider.RoleUser, Parts: []provider.Part{{Text: "TASK-1 <b>"}}},
			{Role: provider.RoleAssistant, Parts: []provider.Part{{Text: "calling"}, {ToolCall: &provider.ToolCall{ID: "c1", Name: "nested", Input: []byte(`{"items":[{"a":"<"}]}`)}}}},
			{Role: provider.RoleUser, Parts: []provider.Part{{ToolResult: &provider.ToolResult{ToolCallID: "c1", Content: "done & dusted"}}}},
		},
		Tools: cacheTestTools()[1:],
	}
}

// recorder keeps the body of every request it carries to the loopback
// server.
type recorder struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.bodies = append(r.bodies, b)
	r.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(b))
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) sent() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bodies
}

func TestEveryAttemptSendsTheBytesTheSDKMakesOfTheRequest(t *testing.T) {
	req := encodeTestRequest()
	req.Tools = append(req.Tools, cacheTestTools()[0]) // keys out of order, $defs
	// Each turn's first attempt is told "overloaded", its second answered.
	sc, err := loopback.ParseScenario([]byte("rules:\n  - sequence:\n      - error: {status: 529, type: overloaded_error, message: Overloaded}\n      - text: ok\n      - error: {status: 529, type: overloaded_error, message: Overloaded}\n      - text: ok\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := loopback.New(sc)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	defer http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	rec := &recorder{}
	p, err := New(Config{APIKey: "k", BaseURL: srv.URL(), Model: "m", MaxTokens: 100, HTTPClient: &http.Client{Transport: rec}, Retry: providertest.Fast(2)})
	if err != nil {
		t.Fatal(err)
	}
	// What the SDK sends of the same parameters when it encodes them
	// itself (the same provider: a schema's extra keywords come in map
	// order, and its tool cache fixes them once).
	params, err := p.params(req)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		stream := p.client.Messages.NewStreaming(context.Background(), params)
		for stream.Next() {
		}
		stream.Close()
	}
	if _, err := p.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	sent := rec.sent()
	if len(sent) != 4 {
		t.Fatalf("%d requests sent, want 2 by the SDK alone and 2 attempts", len(sent))
	}
	want := sent[1]
	for i, got := range sent[2:] {
		if !bytes.Equal(got, want) {
			t.Fatalf("attempt %d sent\n%s\nthe SDK sends\n%s", i, got, want)
		}
	}
	if !bytes.Contains(want, []byte(`"stream":true`)) || !bytes.Contains(want, []byte(`"name":"bash"`)) {
		t.Fatalf("the body lacks the stream flag or a tool: %s", want)
	}
}

func TestARequestWithoutToolsOrWithToolsNotCachedIsSentAsTheSDKMakesIt(t *testing.T) {
	p := &Provider{model: "m", maxTokens: 100}
	req := encodeTestRequest()
	for i, tools := range [][]provider.ToolSpec{nil, {}, req.Tools} {
		req.Tools = tools
		params, err := p.params(req)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			params.Tools = []sdk.ToolUnionParam{} // sent as "tools":[]
		}
		if len(params.Tools) > 0 {
			tp, err := toolParam(tools[0])
			if err != nil {
				t.Fatal(err)
			}
			params.Tools[0] = tp // as a tool past the cache's bound
		}
		want, err := json.Marshal(params)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want[:len(want)-1], `,"stream":true}`...) // as the SDK streams
		r := encode(params)
		if !bytes.Equal(r.body, want) {
			t.Fatalf("with %d tools the body is\n%s\nwant\n%s", len(tools), r.body, want)
		}
		if r.params.Model != params.Model || len(r.params.Messages) != len(params.Messages) || len(r.params.Tools) != len(params.Tools) || r.params.MaxTokens != 100 {
			t.Fatalf("the request's params lost their fields for readers: %+v", r.params)
		}
	}
}

func TestParamsTheSDKCannotEncodeAreLeftToTheSDKToReport(t *testing.T) {
	params := sdk.MessageNewParams{Model: "m", MaxTokens: 1, Messages: []sdk.MessageParam{
		{Role: sdk.MessageParamRoleUser, Content: []sdk.ContentBlockParamUnion{{OfText: &sdk.TextBlockParam{Text: "a"}, OfImage: &sdk.ImageBlockParam{}}}},
	}}
	if _, err := params.MarshalJSON(); err == nil {
		t.Fatal("the SDK encoded a union with two variants set")
	}
	if r := encode(params); r.body != nil {
		t.Fatalf("encoded %s", r.body)
	}
}

// BenchmarkEncodeASubAgentsRequest is what encoding one request of a
// sub-agent costs: a prompt, a task, ten tools.
func BenchmarkEncodeASubAgentsRequest(b *testing.B) {
	p := &Provider{model: "m", maxTokens: 100}
	req := provider.Request{System: strings.Repeat("You are a sub-agent. ", 100), Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "TASK-1"}}}}, Tools: tenTools()}
	b.ReportAllocs()
	for b.Loop() {
		params, err := p.params(req)
		if err != nil {
			b.Fatal(err)
		}
		if encode(params).body == nil {
			b.Fatal("not encoded")
		}
	}
}

// BenchmarkStackOfWaitingStreams reports the goroutine stack each of 200
// streams holds while it waits for the model's answer, as 1,000 sub-agents
// do for a second.
func BenchmarkStackOfWaitingStreams(b *testing.B) {
	const n = 200
	sc, err := loopback.ParseScenario([]byte("rules:\n  - respond: {text: ok, delay_ms: 400}\n"))
	if err != nil {
		b.Fatal(err)
	}
	srv := loopback.New(sc)
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = n
	defer tr.CloseIdleConnections()
	p, err := New(Config{APIKey: "k", BaseURL: srv.URL(), Model: "m", HTTPClient: &http.Client{Transport: tr}, Retry: providertest.Fast(1)})
	if err != nil {
		b.Fatal(err)
	}
	req := encodeTestRequest()
	var perStream float64
	for b.Loop() {
		var before, during runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				if _, err := p.Stream(context.Background(), req, nil); err != nil {
					b.Error(err)
				}
			})
		}
		time.Sleep(250 * time.Millisecond) // all are sent and waiting
		runtime.ReadMemStats(&during)
		wg.Wait()
		perStream = float64(during.StackInuse-before.StackInuse) / n
	}
	b.ReportMetric(perStream, "stack-B/stream")
}

// BenchmarkSubAgentTurns is what the provider allocates per sub-agent of a
// fan-out: 100 turns at once, each a prompt, a task and ten tools sent, a
// one-word answer read. The server writes a fixed answer; its own
// allocations (net/http's per connection and request) are in the figures.
func BenchmarkSubAgentTurns(b *testing.B) {
	const n = 100
	answer := []byte("event: message_start\ndata: " + messageStart + "\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":1}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(answer)
	}))
	defer srv.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = n
	defer tr.CloseIdleConnections()
	p, err := New(Config{APIKey: "k", BaseURL: srv.URL, Model: "m", HTTPClient: &http.Client{Transport: tr}, Retry: providertest.Fast(1)})
	if err != nil {
		b.Fatal(err)
	}
	req := provider.Request{System: strings.Repeat("You are a sub-agent. ", 100), Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "TASK-1"}}}}, Tools: tenTools()}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				if resp, err := p.Stream(context.Background(), req, nil); err != nil || resp.Text != "ok" {
					b.Error(resp, err)
				}
			})
		}
		wg.Wait()
	}
	runtime.ReadMemStats(&after)
	turns := float64(b.N * n)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/turns, "B/agent")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/turns, "allocs/agent")
}
