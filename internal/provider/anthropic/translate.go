package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/atomic-agent/atomic/internal/provider"
)

// NormaliseBaseURL checks raw and returns it as the host root the SDK (and
// Claude Code's ANTHROPIC_BASE_URL) wants, dropping a trailing "/" or "/v1".
func NormaliseBaseURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("anthropic: base URL %q is not an http(s) URL", raw)
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1")
	u.RawPath = ""
	return u.String(), nil
}

// params translates req into the Messages API's request.
func (p *Provider) params(req provider.Request) (sdk.MessageNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.model
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.maxTokens
	}
	params := sdk.MessageNewParams{
		Model:     sdk.Model(model),
		MaxTokens: int64(maxTokens),
	}
	if budget := ThinkingBudget(req.Effort); budget > 0 {
		// The budget counts inside max_tokens, which must exceed it: the
		// answer keeps the room it had without thinking.
		room := req.MaxTokens
		if room <= 0 {
			room = p.thinkingRoom
		}
		params.MaxTokens = int64(budget + room)
		params.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(budget))
	}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	// Sized once: the SDK's unions are large, and growing a slice of
	// them by appending copied each several times per request. (Never
	// empty: an empty slice is sent as [], a nil one not at all.)
	if len(req.Messages) > 0 {
		params.Messages = make([]sdk.MessageParam, 0, len(req.Messages))
	}
	if len(req.Tools) > 0 {
		params.Tools = make([]sdk.ToolUnionParam, 0, len(req.Tools))
	}
	for i, m := range req.Messages {
		mp, err := messageParam(m)
		if err != nil {
			return params, fmt.Errorf("anthropic: message %d: %w", i, err)
		}
		if len(mp.Content) > 0 {
			params.Messages = append(params.Messages, mp)
		}
	}
	if len(params.Messages) == 0 {
		params.Messages = nil // every message was empty
	}
	cache := p.cache && !req.OneOff
	for i, t := range req.Tools {
		tp, err := p.tools.param(t, cache && i == len(req.Tools)-1)
		if err != nil {
			return params, err
		}
		params.Tools = append(params.Tools, tp)
	}
	if cache {
		markCache(&params)
	}
	return params, nil
}

// messageParam translates one message. Empty text parts are dropped: the
// API rejects empty text blocks.
func messageParam(m provider.Message) (sdk.MessageParam, error) {
	var blocks []sdk.ContentBlockParamUnion
	for _, part := range m.Parts {
		switch {
		case part.Thinking != nil:
			if m.Role != provider.RoleAssistant {
				return sdk.MessageParam{}, fmt.Errorf("thinking in a %s message", m.Role)
			}
			// Sent back as it came: the API checks the signature.
			if t := part.Thinking; t.Redacted != "" {
				blocks = append(blocks, sdk.NewRedactedThinkingBlock(t.Redacted))
			} else {
				blocks = append(blocks, sdk.NewThinkingBlock(t.Signature, t.Text))
			}
		case part.ToolCall != nil:
			if m.Role != provider.RoleAssistant {
				return sdk.MessageParam{}, fmt.Errorf("tool call %q in a %s message", part.ToolCall.Name, m.Role)
			}
			input := part.ToolCall.Input
			if len(input) == 0 {
				input = json.RawMessage(`{}`)
			}
			if !json.Valid(input) {
				return sdk.MessageParam{}, fmt.Errorf("tool call %q has input that is not JSON", part.ToolCall.Name)
			}
			blocks = append(blocks, sdk.NewToolUseBlock(part.ToolCall.ID, input, part.ToolCall.Name))
		case part.ToolResult != nil:
			if m.Role != provider.RoleUser {
				return sdk.MessageParam{}, fmt.Errorf("tool result for %q in a %s message", part.ToolResult.ToolCallID, m.Role)
			}
			blocks = append(blocks, toolResultBlock(part.ToolResult))
		case part.Image != nil:
			if m.Role != provider.RoleUser {
				return sdk.MessageParam{}, fmt.Errorf("image (%s) in a %s message", part.Image.MediaType, m.Role)
			}
			blocks = append(blocks, sdk.NewImageBlockBase64(part.Image.MediaType, base64.StdEncoding.EncodeToString(part.Image.Data)))
		case part.Text != "":
			blocks = append(blocks, sdk.NewTextBlock(part.Text))
		}
	}
	switch m.Role {
	case provider.RoleUser:
		return sdk.NewUserMessage(blocks...), nil
	case provider.RoleAssistant:
		return sdk.NewAssistantMessage(blocks...), nil
	default:
		return sdk.MessageParam{}, fmt.Errorf("unknown role %q", m.Role)
	}
}

// toolResultBlock translates a tool result: its text, then its images as
// base64 image blocks. Empty text is left out (the API rejects an empty
// text block), so an empty result is sent without content.
func toolResultBlock(r *provider.ToolResult) sdk.ContentBlockParamUnion {
	if r.Content != "" && len(r.Images) == 0 {
		return sdk.NewToolResultBlock(r.ToolCallID, r.Content, r.IsError)
	}
	b := sdk.ToolResultBlockParam{ToolUseID: r.ToolCallID}
	if r.IsError {
		b.IsError = sdk.Bool(true)
	}
	if r.Content != "" {
		b.Content = append(b.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: r.Content}})
	}
	for _, img := range r.Images {
		b.Content = append(b.Content, sdk.ToolResultBlockParamContentUnion{OfImage: &sdk.ImageBlockParam{
			Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
				Data:      base64.StdEncoding.EncodeToString(img.Data),
				MediaType: sdk.Base64ImageSourceMediaType(img.MediaType),
			}},
		}})
	}
	return sdk.ContentBlockParamUnion{OfToolResult: &b}
}

// toolParam translates a tool spec. The JSON schema's "properties" and
// "required" go to their fields, every other keyword rides along as is.
func toolParam(t provider.ToolSpec) (sdk.ToolUnionParam, error) {
	schema := sdk.ToolInputSchemaParam{}
	if len(t.InputSchema) > 0 {
		var m map[string]any
		if err := json.Unmarshal(t.InputSchema, &m); err != nil {
			return sdk.ToolUnionParam{}, fmt.Errorf("anthropic: tool %q: input schema is not a JSON object: %w", t.Name, err)
		}
		for k, v := range m {
			switch k {
			case "type":
				if v != "object" {
					return sdk.ToolUnionParam{}, fmt.Errorf("anthropic: tool %q: input schema must have type object, not %v", t.Name, v)
				}
			case "properties":
				schema.Properties = v
			case "required":
				req, err := stringList(v)
				if err != nil {
					return sdk.ToolUnionParam{}, fmt.Errorf("anthropic: tool %q: input schema's required: %w", t.Name, err)
				}
				schema.Required = req
			default:
				if schema.ExtraFields == nil {
					schema.ExtraFields = map[string]any{}
				}
				schema.ExtraFields[k] = v
			}
		}
	}
	tp := sdk.ToolParam{Name: t.Name, InputSchema: schema}
	if t.Description != "" {
		tp.Description = sdk.String(t.Description)
	}
	return sdk.ToolUnionParam{OfTool: &tp}, nil
}

func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("not a list of strings")
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("not a list of strings")
		}
		out = append(out, s)
	}
	return out, nil
}
