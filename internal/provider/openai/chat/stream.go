package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/openai/openai-go/v3"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// attempt makes one streamed request. Its errors are classified for the
// retry policy: *provider.APIError, *provider.StreamError (AfterToolCall set
// once a tool call went to on), *provider.ConnError, or ctx's error.
func (p *Provider) attempt(ctx context.Context, params sdk.ChatCompletionNewParams, on func(provider.Chunk)) (*provider.Response, error) {
	x := &exchange{}
	stream := p.client.Chat.Completions.NewStreaming(warmOnRequest(ctx), params, x.option())
	defer stream.Close()

	t := turn{on: on, resp: provider.Response{Model: string(params.Model)}}
	for stream.Next() {
		if err := t.add(stream.Current()); err != nil {
			return nil, &provider.StreamError{Provider: name, AfterToolCall: t.emitted > 0, Err: err}
		}
	}
	if err := stream.Err(); err != nil {
		return nil, classify(ctx, err, x, t.emitted > 0)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if !x.done() && t.finish == "" {
		return nil, &provider.StreamError{Provider: name, AfterToolCall: t.emitted > 0, Err: errors.New("the stream ended before [DONE] and without a finish_reason")}
	}
	if err := t.flush(len(t.toolCalls())); err != nil {
		return nil, &provider.StreamError{Provider: name, AfterToolCall: t.emitted > 0, Err: err}
	}
	return t.response(), nil
}

// turn assembles one streamed answer (choice 0) and emits its chunks.
type turn struct {
	on      func(provider.Chunk)
	acc     sdk.ChatCompletionAccumulator
	resp    provider.Response
	text    strings.Builder
	finish  string
	emitted int // tool calls sent to on, in index order
	// usage is the last usage a chunk carried: counts are totals so far,
	// and some servers (vLLM) send them on every chunk.
	usage sdk.CompletionUsage
}

// add takes one chunk: text goes out at once, a tool call once the stream
// has moved past it (the accumulator says it just finished, a later call's
// delta arrived, or a chunk without tool deltas came).
func (t *turn) add(chunk sdk.ChatCompletionChunk) error {
	if !t.acc.AddChunk(chunk) {
		return fmt.Errorf("chunk %q does not continue completion %q (bad id or index)", chunk.ID, t.acc.ID)
	}
	if chunk.Model != "" {
		t.resp.Model = chunk.Model
	}
	if chunk.Usage.PromptTokens > 0 || chunk.Usage.CompletionTokens > 0 {
		t.usage = chunk.Usage
	}
	upTo := -1 // flush tool calls below this index; -1: all of them
	for _, c := range chunk.Choices {
		if c.Index != 0 {
			continue
		}
		// Servers that stream the reasoning (DeepSeek, vLLM: reasoning_content;
		// OpenRouter: reasoning) send it beside the text; OpenAI sends none.
		if r := reasoningDelta(c.Delta); r != "" {
			t.on(provider.Chunk{Kind: provider.ChunkThinking, Text: r})
		}
		// A refusal is shown like text: it is the model's answer.
		for _, text := range []string{c.Delta.Content, c.Delta.Refusal} {
			if text != "" {
				t.text.WriteString(text)
				t.on(provider.Chunk{Kind: provider.ChunkText, Text: text})
			}
		}
		if c.FinishReason != "" {
			t.finish = c.FinishReason
		}
		for _, d := range c.Delta.ToolCalls {
			if upTo == -1 || int(d.Index) < upTo {
				upTo = max(int(d.Index), 0)
			}
		}
		if c.FinishReason != "" {
			upTo = -1
		}
	}
	if tc, ok := t.acc.JustFinishedToolCall(); ok && upTo != -1 {
		upTo = max(upTo, tc.Index+1)
	}
	if upTo == -1 {
		upTo = len(t.toolCalls())
	}
	return t.flush(upTo)
}

// reasoningDelta is a delta's reasoning text, from the fields servers
// other than OpenAI stream it in.
func reasoningDelta(d sdk.ChatCompletionChunkChoiceDelta) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		f, ok := d.JSON.ExtraFields[key] // unknown fields are never Valid
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// toolCalls are choice 0's tool calls so far.
func (t *turn) toolCalls() []sdk.ChatCompletionMessageToolCallUnion {
	if len(t.acc.Choices) == 0 {
		return nil
	}
	return t.acc.Choices[0].Message.ToolCalls
}

// flush emits the tool calls before index upTo not emitted yet, in order.
func (t *turn) flush(upTo int) error {
	calls := t.toolCalls()
	for ; t.emitted < min(upTo, len(calls)); t.emitted++ {
		c := calls[t.emitted]
		if c.Function.Name == "" {
			return fmt.Errorf("tool call %d (%q) has no function name", t.emitted, c.ID)
		}
		args := c.Function.Arguments
		if args == "" {
			args = "{}"
		}
		if !json.Valid([]byte(args)) {
			return fmt.Errorf("tool call %q (%s) has arguments that are not valid JSON", c.Function.Name, c.ID)
		}
		tc := provider.ToolCall{ID: c.ID, Name: c.Function.Name, Input: json.RawMessage(args)}
		t.resp.ToolCalls = append(t.resp.ToolCalls, tc)
		t.on(provider.Chunk{Kind: provider.ChunkToolCall, ToolCall: &tc})
	}
	return nil
}

// response is the finished turn.
func (t *turn) response() *provider.Response {
	r := t.resp
	r.Text = t.text.String()
	r.StopReason = stopReason(t.finish, len(r.ToolCalls) > 0)
	u := t.usage
	cached := u.PromptTokensDetails.CachedTokens
	r.Usage = provider.FillCost(r.Model, event.Usage{
		InputTokens:     u.PromptTokens - cached,
		OutputTokens:    u.CompletionTokens,
		CacheReadTokens: cached,
	})
	return &r
}

// stopReason normalises finish_reason; servers that send none get one
// inferred from whether the model called tools.
func stopReason(finish string, calledTools bool) provider.StopReason {
	switch finish {
	case "stop":
		return provider.StopEndTurn
	case "tool_calls", "function_call":
		return provider.StopToolUse
	case "length":
		return provider.StopMaxTokens
	case "":
		if calledTools {
			return provider.StopToolUse
		}
		return provider.StopEndTurn
	default:
		return provider.StopOther
	}
}
