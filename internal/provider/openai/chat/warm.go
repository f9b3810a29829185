package chat

import (
	"context"
	"encoding/json"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"

	sdk "github.com/openai/openai-go/v3"
)

// warmOnce guards warmDecoders, warmStarted warmOnRequest: once per
// process.
var (
	warmOnce    sync.Once
	warmStarted atomic.Bool
)

// warmOnRequest returns ctx with a trace that starts warmDecoders once the
// request is written, until one request has.
func warmOnRequest(ctx context.Context) context.Context {
	if warmStarted.Load() {
		return ctx
	}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
		if !warmStarted.Swap(true) {
			go warmDecoders()
		}
	}})
}

// warmDecoders has the SDK build, once per process, the decoders it makes
// by reflection for a stream's chunks and their accumulation (about
// 0.4 ms of CPU). Left to the first chunk of the first answer, that cost
// sits between the model's first bytes and the answer shown; started once
// the first request is written (warmOnRequest), it is paid while the
// model has not answered yet. The SDK's cache makes a decode that comes
// meanwhile wait for the decoders under way rather than build them again.
func warmDecoders() {
	warmOnce.Do(func() {
		var acc sdk.ChatCompletionAccumulator
		for _, raw := range strings.Split(warmChunks, "\n") {
			var c sdk.ChatCompletionChunk
			if json.Unmarshal([]byte(raw), &c) != nil {
				return
			}
			acc.AddChunk(c)
		}
	})
}

// warmChunks is an answer's stream, one chunk a line: text, a tool call
// in two deltas, the finish and the usage.
const warmChunks = `{"id":"w","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}
{"id":"w","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_w","type":"function","function":{"name":"read","arguments":""}}]},"finish_reason":null}]}
{"id":"w","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\"a\"}"}}]},"finish_reason":null}]}
{"id":"w","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}
{"id":"w","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`
