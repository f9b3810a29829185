package anthropic

import (
	"context"
	"encoding/json"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"

	sdk "github.com/anthropics/anthropic-sdk-go"
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
// by reflection for the stream's events and for the message they
// accumulate into (its apijson walks every variant of the event union:
// about 0.8 ms of CPU). Left to the first event of the first answer, that
// cost sits between the model's first bytes and the answer shown; called
// once the first request is written (warmOnRequest), it is paid while the
// model has not answered yet. The SDK's cache makes a decode that comes
// meanwhile wait for the decoders under way rather than build them again.
func warmDecoders() {
	warmOnce.Do(func() {
		var msg sdk.Message
		for _, raw := range strings.Split(warmEvents, "\n") {
			var ev sdk.MessageStreamEventUnion
			if json.Unmarshal([]byte(raw), &ev) != nil || msg.Accumulate(ev) != nil {
				return
			}
		}
	})
}

// warmEvents is an answer's stream, one event a line: every event type,
// with a thinking, a text and a tool_use block.
const warmEvents = `{"type":"message_start","message":{"id":"msg_w","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}
{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}
{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"t"}}
{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}
{"type":"content_block_stop","index":0}
{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}
{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"hi"}}
{"type":"content_block_stop","index":1}
{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_w","name":"read","input":{}}}
{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"a\"}"}}
{"type":"content_block_stop","index":2}
{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":3}}
{"type":"message_stop"}`
