package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// attempt makes one streamed request: the SDK's client sends it and
// reports a refusal as Messages.NewStreaming does, and its SSE stream
// frames the answer's events, decoded as wireEvents (not its own event
// union: see wire.go). What NewStreaming adds beside is not used here:
// per-request headers of parameters Atomic does not set, an OpenTelemetry
// span, and a deprecation warning printed on stderr. Its errors are classified for the
// retry policy: *provider.APIError, *provider.StreamError (AfterToolCall set
// once a tool call went to on), *provider.ConnError, or ctx's error.
func (p *Provider) attempt(ctx context.Context, r *request, on func(provider.Chunk)) (*provider.Response, error) {
	var raw *http.Response
	err := p.client.Post(ctx, "v1/messages", r.params, &raw, r.options()...)
	stream := ssestream.NewStream[wireEvent](ssestream.NewDecoder(raw), err)
	defer stream.Close()
	return read(ctx, stream, string(r.params.Model), on)
}

// read reads an answer's stream. Apart from attempt, so that the agent's
// goroutine waits for the answer's headers without read's frame below.
func read(ctx context.Context, stream *ssestream.Stream[wireEvent], model string, on func(provider.Chunk)) (*provider.Response, error) {
	var (
		msg      answer
		resp     = &provider.Response{Model: model}
		text     strings.Builder
		stopped  bool
		toolSeen bool
	)
	for stream.Next() {
		ev := stream.Current()
		if ev.Type == "content_block_stop" {
			if err := checkToolInput(&msg, ev.Index); err != nil {
				return nil, &provider.StreamError{Provider: name, AfterToolCall: toolSeen, Err: err}
			}
		}
		if err := msg.add(&ev); err != nil {
			return nil, &provider.StreamError{Provider: name, AfterToolCall: toolSeen, Err: fmt.Errorf("malformed event stream: %w", err)}
		}
		switch ev.Type {
		case "content_block_delta":
			switch {
			case ev.Delta.Type == "text_delta" && ev.Delta.Text != "":
				text.WriteString(ev.Delta.Text)
				on(provider.Chunk{Kind: provider.ChunkText, Text: ev.Delta.Text})
			case ev.Delta.Type == "thinking_delta" && ev.Delta.Thinking != "":
				on(provider.Chunk{Kind: provider.ChunkThinking, Text: ev.Delta.Thinking})
			}
		case "content_block_stop":
			b := &msg.blocks[ev.Index]
			switch b.typ {
			case "thinking":
				resp.Thinking = append(resp.Thinking, provider.Thinking{Text: b.thinking, Signature: b.sig})
			case "redacted_thinking":
				resp.Thinking = append(resp.Thinking, provider.Thinking{Redacted: b.data})
			case "tool_use":
				tc := provider.ToolCall{ID: b.id, Name: b.name, Input: toolInput(b.input)}
				resp.ToolCalls = append(resp.ToolCalls, tc)
				toolSeen = true
				on(provider.Chunk{Kind: provider.ChunkToolCall, ToolCall: &tc})
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := stream.Err(); err != nil {
		return nil, classify(ctx, err, toolSeen)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if !stopped {
		return nil, &provider.StreamError{Provider: name, AfterToolCall: toolSeen, Err: errors.New("the stream ended before message_stop")}
	}
	if msg.model != "" {
		resp.Model = msg.model
	}
	resp.Text = text.String()
	resp.StopReason = stopReason(sdk.StopReason(msg.stopReason))
	resp.Usage = provider.FillCost(resp.Model, msg.usage.event())
	return resp, nil
}

// checkToolInput reports a tool_use block at index whose streamed input is
// not JSON; it must run before the block's stop event is accumulated,
// which would quietly replace such input with {}.
func checkToolInput(msg *answer, index int64) error {
	if index < 0 || index >= int64(len(msg.blocks)) {
		return nil // add reports the bad index
	}
	b := &msg.blocks[index]
	if b.typ == "tool_use" && len(b.input) > 0 && !json.Valid(b.input) {
		return fmt.Errorf("tool call %q (%s) has input that is not valid JSON", b.name, b.id)
	}
	return nil
}

// toolInput copies in, reading nothing as an empty object.
func toolInput(in json.RawMessage) json.RawMessage {
	if len(in) == 0 {
		return json.RawMessage(`{}`)
	}
	return append(json.RawMessage(nil), in...)
}

// stopReason normalises the API's stop reason.
func stopReason(r sdk.StopReason) provider.StopReason {
	switch r {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return provider.StopEndTurn
	case sdk.StopReasonToolUse:
		return provider.StopToolUse
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return provider.StopMaxTokens
	default:
		return provider.StopOther
	}
}

// event is u as Atomic counts tokens.
func (u usage) event() event.Usage {
	return event.Usage{
		InputTokens:         u.input,
		OutputTokens:        u.output,
		CacheReadTokens:     u.cacheRead,
		CacheCreationTokens: u.cacheCreation,
	}
}
