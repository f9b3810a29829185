package chat

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/providertest"
)

// These cases stand in for OpenAI-compatible servers (Ollama, vLLM,
// llama.cpp) whose streams differ from OpenAI's in ways the loopback
// server does not script: each handler writes a fixed SSE body.

// sse writes events as data lines, one per event.
func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
		w.(http.Flusher).Flush()
	}
}

func compatServer(t *testing.T, h http.HandlerFunc) *Provider {
	t.Helper()
	clearEnv(t)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	p, err := New(Config{BaseURL: srv.URL, Model: "llama3.1:8b", HTTPClient: &http.Client{Transport: tr}, Retry: providertest.Fast(3)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func hi() provider.Request {
	return provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "hi"}}}}}
}

func TestStreamWithoutUsageOrFinishReasonSucceeds(t *testing.T) {
	p := compatServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w,
			`{"id":"c1","object":"chat.completion.chunk","model":"llama3.1:8b","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}`,
			`{"id":"c1","object":"chat.completion.chunk","model":"llama3.1:8b","choices":[{"index":0,"delta":{"content":"lo"}}]}`,
			`[DONE]`)
	})
	resp, err := p.Stream(context.Background(), hi(), nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.Text != "Hello" || resp.StopReason != provider.StopEndTurn {
		t.Errorf("got %q, stop %q; want Hello, end_turn", resp.Text, resp.StopReason)
	}
	if resp.Usage.Total() != 0 || resp.Usage.CostUSD != 0 || resp.Usage.ContextWindow != 0 {
		t.Errorf("usage = %+v, want zero for a server that reports none and an unknown model", resp.Usage)
	}
}

func TestToolCallsSentWholeInOneChunkAreAllEmitted(t *testing.T) {
	p := compatServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w,
			`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[`+
				`{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.go\"}"}},`+
				`{"index":1,"id":"call_b","type":"function","function":{"name":"ls","arguments":""}}]}}]}`,
			`[DONE]`)
	})
	var emitted []string
	resp, err := p.Stream(context.Background(), hi(), func(c provider.Chunk) {
		if c.Kind == provider.ChunkToolCall {
			emitted = append(emitted, c.ToolCall.ID+" "+string(c.ToolCall.Input))
		}
	})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	want := []string{`call_a {"path":"a.go"}`, `call_b {}`}
	if fmt.Sprint(emitted) != fmt.Sprint(want) || len(resp.ToolCalls) != 2 {
		t.Errorf("emitted %v, response has %d calls; want %v in both", emitted, len(resp.ToolCalls), want)
	}
	if resp.StopReason != provider.StopToolUse {
		t.Errorf("StopReason = %q, want tool_use inferred from the calls", resp.StopReason)
	}
}

func TestInvalidToolArgumentsAreAStreamError(t *testing.T) {
	p := compatServer(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w,
			`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":"{\"path\":"}}]}}]}`,
			`{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			`[DONE]`)
	})
	_, err := p.Stream(context.Background(), hi(), nil)
	var se *provider.StreamError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("err = %v, want a StreamError about the arguments", err)
	}
}

func TestStreamClosedCleanlyBeforeDoneIsRetried(t *testing.T) {
	var calls atomic.Int32
	p := compatServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			// The handler returns: the response ends cleanly, but early.
			sse(w, `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"part"}}]}`)
			return
		}
		sse(w,
			`{"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"whole"},"finish_reason":"stop"}]}`,
			`[DONE]`)
	})
	var retries int
	resp, err := p.Stream(context.Background(), hi(), func(c provider.Chunk) {
		if c.Kind == provider.ChunkRetry {
			retries++
			var se *provider.StreamError
			if !errors.As(c.Err, &se) || !strings.Contains(se.Error(), "[DONE]") {
				t.Errorf("retry cause = %v, want a StreamError about the missing [DONE]", c.Err)
			}
		}
	})
	if err != nil || resp.Text != "whole" || retries != 1 {
		t.Fatalf("got %v, %v after %d retries; want the whole second answer after one retry", resp, err, retries)
	}
}

func TestErrorBodiesOfCompatibleServersAreRead(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		want   []string
	}{
		{"ollama", 404, `{"error":"model \"llama9\" not found, try pulling it first"}`, []string{"HTTP 404", `model "llama9" not found`, "base URL"}},
		{"vllm", 404, `{"object":"error","message":"The model llama9 does not exist.","type":"NotFoundError","param":null,"code":404}`, []string{"HTTP 404", "NotFoundError", "does not exist"}},
		{"fastapi", 400, `{"detail":"context length exceeded"}`, []string{"HTTP 400", "context length exceeded"}},
		{"plain text", 400, "bad request\n\n", []string{"HTTP 400 bad request"}},
		{"openai", 401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, []string{"HTTP 401", "Incorrect API key", "API key was rejected"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			p := compatServer(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.WriteHeader(c.status)
				fmt.Fprint(w, c.body)
			})
			_, err := p.Stream(context.Background(), hi(), nil)
			var ae *provider.APIError
			if !errors.As(err, &ae) || ae.StatusCode != c.status {
				t.Fatalf("err = %v, want an APIError with status %d", err, c.status)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") || calls.Load() != 1 {
				t.Errorf("error %q sent after %d requests, want one line and no retry", err, calls.Load())
			}
		})
	}
}

func TestRetryAfterMillisecondsHeaderIsRead(t *testing.T) {
	var calls atomic.Int32
	p := compatServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("retry-after-ms", "40")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)
			return
		}
		sse(w, `{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, `[DONE]`)
	})
	var after []string
	resp, err := p.Stream(context.Background(), hi(), func(c provider.Chunk) {
		var ae *provider.APIError
		if c.Kind == provider.ChunkRetry && errors.As(c.Err, &ae) {
			after = append(after, ae.RetryAfter.String())
		}
	})
	if err != nil || resp.Text != "ok" {
		t.Fatalf("got %v, %v", resp, err)
	}
	if fmt.Sprint(after) != "[40ms]" {
		t.Errorf("retry-after seen = %v, want [40ms]", after)
	}
}
