package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// attempt makes one streamed request. Its errors are classified for the
// retry policy: *provider.APIError, *provider.StreamError (AfterToolCall set
// once a tool call went to on), *provider.ConnError, or ctx's error.
func (p *Provider) attempt(ctx context.Context, r *request, on func(provider.Chunk)) (*provider.Response, error) {
	stream := p.client.Messages.NewStreaming(warmOnRequest(ctx), r.params, r.options()...)
	defer stream.Close()
	return read(ctx, stream, string(r.params.Model), on)
}

// read reads an answer's stream. Apart from attempt because its frame is
// large (about 16 KB: the SDK's events and message are big structs): the
// agent's goroutine waits for the answer's headers in attempt, and with
// this frame below it that wait needed a 32 KB stack instead of 16 KB.
func read(ctx context.Context, stream *ssestream.Stream[sdk.MessageStreamEventUnion], model string, on func(provider.Chunk)) (*provider.Response, error) {
	var (
		msg      sdk.Message
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
		if err := msg.Accumulate(ev); err != nil {
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
			b := msg.Content[ev.Index]
			switch b.Type {
			case "thinking":
				resp.Thinking = append(resp.Thinking, provider.Thinking{Text: b.Thinking, Signature: b.Signature})
			case "redacted_thinking":
				resp.Thinking = append(resp.Thinking, provider.Thinking{Redacted: b.Data})
			case "tool_use":
				tc := provider.ToolCall{ID: b.ID, Name: b.Name, Input: toolInput(b.Input)}
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
	if msg.Model != "" {
		resp.Model = string(msg.Model)
	}
	resp.Text = text.String()
	resp.StopReason = stopReason(msg.StopReason)
	resp.Usage = provider.FillCost(resp.Model, usage(msg.Usage))
	return resp, nil
}

// checkToolInput reports a tool_use block at index whose streamed input is
// not JSON; it must run before Accumulate sees the block's stop event,
// which would quietly replace such input with {}.
func checkToolInput(msg *sdk.Message, index int64) error {
	if index < 0 || index >= int64(len(msg.Content)) {
		return nil // Accumulate reports the bad index
	}
	b := msg.Content[index]
	if b.Type == "tool_use" && len(b.Input) > 0 && !json.Valid(b.Input) {
		return fmt.Errorf("tool call %q (%s) has input that is not valid JSON", b.Name, b.ID)
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

// usage converts the API's token counts.
func usage(u sdk.Usage) event.Usage {
	return event.Usage{
		InputTokens:         u.InputTokens,
		OutputTokens:        u.OutputTokens,
		CacheReadTokens:     u.CacheReadInputTokens,
		CacheCreationTokens: u.CacheCreationInputTokens,
	}
}
