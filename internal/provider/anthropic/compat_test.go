package anthropic

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

// These cases write fixed event streams the loopback server does not
// script: a stream that ends cleanly but early, and broken tool input.

type sseEvent struct{ name, data string }

func writeEvents(w http.ResponseWriter, events ...sseEvent) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data)
		w.(http.Flusher).Flush()
	}
}

const messageStart = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1,"cache_read_input_tokens":4000,"cache_creation_input_tokens":200}}}`

func compatProvider(t *testing.T, h http.HandlerFunc) *Provider {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	p, err := New(Config{APIKey: "k", BaseURL: srv.URL, Model: "claude-haiku-4-5", HTTPClient: &http.Client{Transport: tr}, Retry: providertest.Fast(3)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func hi() provider.Request {
	return provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "hi"}}}}}
}

func TestStreamEndingCleanlyBeforeMessageStopIsRetried(t *testing.T) {
	var calls atomic.Int32
	p := compatProvider(t, func(w http.ResponseWriter, r *http.Request) {
		events := []sseEvent{
			{"message_start", messageStart},
			{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"done"}}`},
		}
		if calls.Add(1) > 1 {
			events = append(events,
				sseEvent{"content_block_stop", `{"type":"content_block_stop","index":0}`},
				sseEvent{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}`},
				sseEvent{"message_stop", `{"type":"message_stop"}`})
		}
		writeEvents(w, events...)
	})
	var retries int
	resp, err := p.Stream(context.Background(), hi(), func(c provider.Chunk) {
		if c.Kind == provider.ChunkRetry {
			retries++
		}
	})
	if err != nil || resp.Text != "done" || retries != 1 {
		t.Fatalf("got %+v, %v after %d retries; want the complete answer after one retry", resp, err, retries)
	}
	u := resp.Usage
	if u.InputTokens != 10 || u.OutputTokens != 3 || u.CacheReadTokens != 4000 || u.CacheCreationTokens != 200 {
		t.Errorf("usage = %+v, want 10 in, 3 out, 4000 cache read, 200 cache write", u)
	}
	if want, _ := provider.Cost("claude-haiku-4-5", u); u.CostUSD != want || want == 0 {
		t.Errorf("cost = %v, want %v (cache tokens included)", u.CostUSD, want)
	}
}

func TestToolInputThatIsNotJSONIsAStreamError(t *testing.T) {
	p := compatProvider(t, func(w http.ResponseWriter, r *http.Request) {
		writeEvents(w,
			sseEvent{"message_start", messageStart},
			sseEvent{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}`},
			sseEvent{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}`},
			sseEvent{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			sseEvent{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":3}}`},
			sseEvent{"message_stop", `{"type":"message_stop"}`})
	})
	var calls int
	_, err := p.Stream(context.Background(), hi(), func(c provider.Chunk) {
		if c.Kind == provider.ChunkToolCall {
			calls++
		}
	})
	var se *provider.StreamError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "not valid JSON") || calls != 0 {
		t.Fatalf("err = %v with %d tool calls emitted, want a StreamError about the input and none", err, calls)
	}
}
