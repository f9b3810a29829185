package chat

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/atomic-agent/atomic/internal/provider"
)

// params translates req into a Chat Completions request: the system prompt
// as a system message, tool results as role=tool messages, tool calls as
// the assistant's tool_calls, and usage asked for in the stream.
func (p *Provider) params(req provider.Request) (sdk.ChatCompletionNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.model
	}
	params := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(model),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.maxTokens
	}
	if maxTokens > 0 {
		if p.official {
			params.MaxCompletionTokens = sdk.Int(int64(maxTokens))
		} else {
			params.MaxTokens = sdk.Int(int64(maxTokens))
		}
	}
	if req.CacheKey != "" && p.cache {
		// OpenAI caches every prompt's prefix; the key routes an agent's
		// requests (and its siblings') to the cache that holds it.
		params.PromptCacheKey = sdk.String(req.CacheKey)
	}
	if e := ReasoningEffort(req.Effort); e != "" {
		params.ReasoningEffort = e
	}
	if req.System != "" {
		params.Messages = append(params.Messages, sdk.SystemMessage(req.System))
	}
	for i, m := range req.Messages {
		msgs, err := messageParams(m)
		if err != nil {
			return params, fmt.Errorf("openai: message %d: %w", i, err)
		}
		params.Messages = append(params.Messages, msgs...)
	}
	for _, t := range req.Tools {
		tp, err := p.tools.param(t)
		if err != nil {
			return params, err
		}
		params.Tools = append(params.Tools, tp)
	}
	return params, nil
}

// ReasoningEffort is the reasoning_effort of an effort level: low,
// medium and high as they are; max as high, the highest level every
// reasoning model of Chat Completions takes (xhigh and max only some do,
// and other servers know low to high). Empty: none sent.
func ReasoningEffort(e provider.Effort) shared.ReasoningEffort {
	switch e {
	case provider.EffortLow:
		return shared.ReasoningEffortLow
	case provider.EffortMedium:
		return shared.ReasoningEffortMedium
	case provider.EffortHigh, provider.EffortMax:
		return shared.ReasoningEffortHigh
	}
	return ""
}

// messageParams translates one message, which may become several: a user
// message's tool results become one tool message each, placed first so
// they directly follow the assistant message that made the calls. A user
// message with images of its own is sent as content parts in their order
// (text and image_url data URLs); without, as one string.
func messageParams(m provider.Message) ([]sdk.ChatCompletionMessageParamUnion, error) {
	var (
		texts   []string
		calls   []sdk.ChatCompletionMessageToolCallUnionParam
		results []sdk.ChatCompletionMessageParamUnion
		images  []sdk.ChatCompletionContentPartUnionParam
		content []sdk.ChatCompletionContentPartUnionParam // text and own images, in order
		ownImgs bool
	)
	for _, part := range m.Parts {
		switch {
		case part.ToolCall != nil:
			if m.Role != provider.RoleAssistant {
				return nil, fmt.Errorf("tool call %q in a %s message", part.ToolCall.Name, m.Role)
			}
			args := string(part.ToolCall.Input)
			if args == "" {
				args = "{}"
			}
			calls = append(calls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       part.ToolCall.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: part.ToolCall.Name, Arguments: args},
				},
			})
		case part.ToolResult != nil:
			if m.Role != provider.RoleUser {
				return nil, fmt.Errorf("tool result for %q in a %s message", part.ToolResult.ToolCallID, m.Role)
			}
			results = append(results, sdk.ToolMessage(toolResultText(part.ToolResult), part.ToolResult.ToolCallID))
			images = append(images, imageParts(part.ToolResult)...)
		case part.Image != nil:
			if m.Role != provider.RoleUser {
				return nil, fmt.Errorf("image (%s) in a %s message", part.Image.MediaType, m.Role)
			}
			ownImgs = true
			content = append(content, imagePart(*part.Image))
		case part.Text != "":
			texts = append(texts, part.Text)
			content = append(content, sdk.TextContentPart(part.Text))
		}
	}
	text := strings.Join(texts, "\n\n")
	switch m.Role {
	case provider.RoleUser:
		out := results
		if len(images) > 0 {
			out = append(out, sdk.UserMessage(images))
		}
		switch {
		case ownImgs:
			out = append(out, sdk.UserMessage(content))
		case text != "":
			out = append(out, sdk.UserMessage(text))
		}
		return out, nil
	case provider.RoleAssistant:
		if text == "" && len(calls) == 0 {
			return nil, nil
		}
		a := sdk.ChatCompletionAssistantMessageParam{ToolCalls: calls}
		if text != "" {
			a.Content.OfString = sdk.String(text)
		}
		return []sdk.ChatCompletionMessageParamUnion{{OfAssistant: &a}}, nil
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
}

// toolResultText is a tool result's content. Chat Completions has no error
// flag for tool results, so a failed call's text is marked "Error: " unless
// it says so already. Images are announced: they follow in a user message.
func toolResultText(r *provider.ToolResult) string {
	text := r.Content
	if r.IsError && !strings.HasPrefix(strings.ToLower(text), "error") {
		text = "Error: " + text
	}
	if n := len(r.Images); n > 0 {
		text += fmt.Sprintf("\n[%d image(s) returned; they follow in the next user message]", n)
	}
	return text
}

// imageParts carries a tool result's images to the model. Chat
// Completions tool messages take text only, so the images go in a user
// message after the tool messages: a text part naming the call, then one
// data-URL image part per image.
func imageParts(r *provider.ToolResult) []sdk.ChatCompletionContentPartUnionParam {
	if len(r.Images) == 0 {
		return nil
	}
	parts := []sdk.ChatCompletionContentPartUnionParam{sdk.TextContentPart("Images returned by tool call " + r.ToolCallID + ":")}
	for _, img := range r.Images {
		parts = append(parts, imagePart(img))
	}
	return parts
}

// imagePart is an image as an image_url part holding a base64 data URL.
func imagePart(img provider.Image) sdk.ChatCompletionContentPartUnionParam {
	return sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{
		URL: "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data),
	})
}

// toolParam translates a tool spec into a function tool.
func toolParam(t provider.ToolSpec) (sdk.ChatCompletionToolUnionParam, error) {
	fn := shared.FunctionDefinitionParam{Name: t.Name}
	if t.Description != "" {
		fn.Description = sdk.String(t.Description)
	}
	if len(t.InputSchema) > 0 {
		var schema map[string]any
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			return sdk.ChatCompletionToolUnionParam{}, fmt.Errorf("openai: tool %q: input schema is not a JSON object: %w", t.Name, err)
		}
		fn.Parameters = shared.FunctionParameters(schema)
	} else {
		fn.Parameters = shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
	}
	return sdk.ChatCompletionFunctionTool(fn), nil
}
