package loopback

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// request is an API request in the API-neutral form that rules match on
// and the log records.
type request struct {
	api          string
	model        string
	stream       bool
	includeUsage bool // OpenAI stream_options.include_usage
	system       string
	tools        []string
	messages     []LogMessage
	// lastTurnResults are the tool results of the last turn: Anthropic
	// tool_result blocks of a final user message, OpenAI role=tool
	// messages after the last assistant message.
	lastTurnResults []LogToolResult
	bodySize        int
	// responses holds what only a Responses API request has.
	responses *responsesRequest

	// cacheBlocks is the prompt in caching order (cache.go); nil when the
	// request does not ask for caching.
	cacheBlocks    []cacheBlock
	promptCacheKey string // OpenAI prompt_cache_key
	// Thinking asked for: Anthropic thinking.budget_tokens (or adaptive),
	// OpenAI reasoning_effort / reasoning.effort.
	thinkingBudget   int
	thinkingAdaptive bool
	effort           string
	// thinkingBack is the thinking the client sent back, to verify.
	thinkingBack []thinkingBlock
}

// apiError is an error answer before it is put into an API's wire format.
type apiError struct {
	status  int
	typ     string // empty: the API's default for status
	code    string // OpenAI APIs only
	param   string // OpenAI APIs only
	message string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.typ, e.message) }

func badRequest(format string, args ...any) *apiError {
	return &apiError{status: 400, typ: "invalid_request_error", message: fmt.Sprintf(format, args...)}
}

// userTexts are the texts of the user messages that carry text, in order.
func (r *request) userTexts() []string {
	var out []string
	for _, m := range r.messages {
		if m.Role == "user" && m.Text != "" {
			out = append(out, m.Text)
		}
	}
	return out
}

// toolResults are every tool result of the conversation, in order.
func (r *request) toolResults() []LogToolResult {
	var out []LogToolResult
	for _, m := range r.messages {
		out = append(out, m.ToolResults...)
	}
	return out
}

// collect is the string values of field in the tool results that are JSON
// objects, in order, without repeats.
func (r *request) collect(field string) []any {
	out := []any{}
	seen := map[string]bool{}
	for _, res := range r.toolResults() {
		var obj map[string]any
		if json.Unmarshal([]byte(res.Content), &obj) != nil {
			continue
		}
		if v, ok := obj[field].(string); ok && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func (r *request) lastUserText() string {
	texts := r.userTexts()
	if len(texts) == 0 {
		return ""
	}
	return texts[len(texts)-1]
}

func (r *request) firstUserText() string {
	texts := r.userTexts()
	if len(texts) == 0 {
		return ""
	}
	return texts[0]
}

// parseAnthropic reads a Messages API request body and checks it the way
// the real API does for the mistakes a client is likely to make.
func parseAnthropic(body []byte) (*request, *apiError) {
	var in struct {
		Model     string          `json:"model"`
		MaxTokens *int64          `json:"max_tokens"`
		System    json.RawMessage `json:"system"`
		Messages  []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
		Stream   bool              `json:"stream"`
		Thinking *struct {
			Type         string `json:"type"`
			BudgetTokens *int64 `json:"budget_tokens"`
		} `json:"thinking"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, badRequest("request body is not valid JSON: %v", err)
	}
	switch {
	case in.Model == "":
		return nil, badRequest("model: Field required")
	case in.MaxTokens == nil:
		return nil, badRequest("max_tokens: Field required")
	case *in.MaxTokens < 1:
		return nil, badRequest("max_tokens: Input should be greater than or equal to 1")
	case len(in.Messages) == 0:
		return nil, badRequest("messages: at least one message is required")
	}
	req := &request{api: APIAnthropic, model: in.Model, stream: in.Stream, bodySize: len(body)}
	if e := req.readThinking(in.Thinking, *in.MaxTokens); e != nil {
		return nil, e
	}
	system, err := anthropicText(in.System)
	if err != nil {
		return nil, badRequest("system: %v", err)
	}
	req.system = system
	for _, raw := range in.Tools {
		var t struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, badRequest("tools: %v", err)
		}
		req.tools = append(req.tools, t.Name)
	}
	prevToolUses := map[string]bool{}
	for i, m := range in.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return nil, badRequest("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		blocks, err := anthropicBlocks(m.Content)
		if err != nil {
			return nil, badRequest("messages.%d.content: %v", i, err)
		}
		msg := LogMessage{Role: m.Role}
		var texts []string
		toolUses := map[string]bool{}
		if e := checkThinkingOrder(i, m.Role, blocks); e != nil {
			return nil, e
		}
		for j, b := range blocks {
			switch b.Type {
			case "thinking", "redacted_thinking":
				if m.Role != "assistant" {
					return nil, badRequest("messages.%d.content.%d: %s blocks may only appear in assistant messages", i, j, b.Type)
				}
				t := thinkingBlock{msg: i, block: j, thinking: b.Thinking, signature: b.Signature}
				if b.Type == "redacted_thinking" {
					t.redacted, t.signature = true, b.Data
				}
				req.thinkingBack = append(req.thinkingBack, t)
			case "text":
				texts = append(texts, b.Text)
			case "image":
				img, err := anthropicImage(b.Source)
				if err != nil {
					return nil, badRequest("messages.%d.content.%d.%v", i, j, err)
				}
				msg.Images = append(msg.Images, img)
			case "tool_use":
				if m.Role != "assistant" {
					return nil, badRequest("messages.%d.content.%d: tool_use blocks may only appear in assistant messages", i, j)
				}
				toolUses[b.ID] = true
				msg.ToolCalls = append(msg.ToolCalls, LogToolCall{ID: b.ID, Name: b.Name, Input: compactJSON(b.Input)})
			case "tool_result":
				if m.Role != "user" {
					return nil, badRequest("messages.%d.content.%d: tool_result blocks may only appear in user messages", i, j)
				}
				if !prevToolUses[b.ToolUseID] {
					return nil, badRequest("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
				}
				delete(prevToolUses, b.ToolUseID)
				content, err := anthropicText(b.Content)
				if err != nil {
					return nil, badRequest("messages.%d.content.%d.content: %v", i, j, err)
				}
				images, err := anthropicImages(b.Content)
				if err != nil {
					return nil, badRequest("messages.%d.content.%d.tool_result.content.%v", i, j, err)
				}
				msg.ToolResults = append(msg.ToolResults, LogToolResult{ToolCallID: b.ToolUseID, Content: content, IsError: b.IsError, Images: images})
			}
		}
		if len(prevToolUses) > 0 {
			return nil, badRequest("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i-1, strings.Join(sortedKeys(prevToolUses), ", "))
		}
		prevToolUses = toolUses
		msg.Text = strings.Join(texts, "\n")
		req.messages = append(req.messages, msg)
	}
	if last := req.messages[len(req.messages)-1]; last.Role == "user" {
		req.lastTurnResults = last.ToolResults
	}
	if req.thinks() && len(req.lastTurnResults) > 0 && len(in.Messages) >= 2 {
		i := len(in.Messages) - 2
		blocks, _ := anthropicBlocks(in.Messages[i].Content)
		if len(blocks) > 0 && blocks[0].Type != "thinking" && blocks[0].Type != "redacted_thinking" {
			return nil, badRequest("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", i, blocks[0].Type)
		}
	}
	if bytes.Contains(body, []byte(`"cache_control"`)) {
		contents := make([]json.RawMessage, len(in.Messages))
		for i, m := range in.Messages {
			contents[i] = m.Content
		}
		blocks, e := anthropicCacheBlocks(in.Tools, in.System, contents)
		if e != nil {
			return nil, e
		}
		req.cacheBlocks = blocks
	}
	return req, nil
}

// readThinking checks Anthropic's thinking parameter as the real API does.
func (req *request) readThinking(t *struct {
	Type         string `json:"type"`
	BudgetTokens *int64 `json:"budget_tokens"`
}, maxTokens int64) *apiError {
	if t == nil {
		return nil
	}
	switch t.Type {
	case "disabled":
		return nil
	case "adaptive":
		req.thinkingAdaptive = true
		return nil
	case "enabled":
	default:
		return badRequest("thinking.type: Input tag '%s' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'", t.Type)
	}
	switch {
	case t.BudgetTokens == nil:
		return badRequest("thinking.enabled.budget_tokens: Field required")
	case *t.BudgetTokens < minThinkingBudget:
		return badRequest("thinking.enabled.budget_tokens: Input should be greater than or equal to %d", minThinkingBudget)
	case maxTokens <= *t.BudgetTokens:
		return badRequest("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size")
	}
	req.thinkingBudget = int(*t.BudgetTokens)
	return nil
}

// checkThinkingOrder refuses an assistant message whose thinking blocks
// do not come first.
func checkThinkingOrder(i int, role string, blocks []anthropicBlock) *apiError {
	if role != "assistant" || len(blocks) == 0 {
		return nil
	}
	isThinking := func(b anthropicBlock) bool { return b.Type == "thinking" || b.Type == "redacted_thinking" }
	if isThinking(blocks[0]) || !slices.ContainsFunc(blocks, isThinking) {
		return nil
	}
	return badRequest("messages.%d.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found %s.", i, blocks[0].Type)
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    json.RawMessage `json:"source"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

// anthropicBlocks reads message content: a string or a list of blocks.
func anthropicBlocks(raw json.RawMessage) ([]anthropicBlock, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("Field required")
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, fmt.Errorf("Input should be a valid string or list of content blocks: %v", err)
	}
	return blocks, nil
}

// anthropicText is the text of a system prompt or tool result: a string or
// the text blocks of a list, joined by newlines. Absent is empty.
func anthropicText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	blocks, err := anthropicBlocks(raw)
	if err != nil {
		return "", err
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// parseOpenAI reads a Chat Completions request body and checks it the way
// the real API does for the mistakes a client is likely to make.
func parseOpenAI(body []byte) (*request, *apiError) {
	var in struct {
		Model    string `json:"model"`
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
			Custom struct {
				Name string `json:"name"`
			} `json:"custom"`
		} `json:"tools"`
		Stream        bool `json:"stream"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		ReasoningEffort string `json:"reasoning_effort"`
		PromptCacheKey  string `json:"prompt_cache_key"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, badRequest("We could not parse the JSON body of your request: %v", err)
	}
	if in.Model == "" {
		return nil, &apiError{status: 400, typ: "invalid_request_error", param: "model", message: "you must provide a model parameter"}
	}
	if len(in.Messages) == 0 {
		return nil, &apiError{status: 400, typ: "invalid_request_error", param: "messages", message: "[] is too short - 'messages'"}
	}
	req := &request{api: APIOpenAI, model: in.Model, stream: in.Stream, bodySize: len(body),
		effort: in.ReasoningEffort, promptCacheKey: in.PromptCacheKey}
	req.includeUsage = in.StreamOptions != nil && in.StreamOptions.IncludeUsage
	if req.promptCacheKey != "" {
		var raw struct {
			Tools    []json.RawMessage `json:"tools"`
			Messages []json.RawMessage `json:"messages"`
		}
		_ = json.Unmarshal(body, &raw) // the body decoded above, so this does too
		req.cacheBlocks = openAICacheBlocks("messages", raw.Messages, 0, openAICacheBlocks("tools", raw.Tools, 0, nil))
	}
	for _, t := range in.Tools {
		if t.Type == "custom" {
			req.tools = append(req.tools, t.Custom.Name)
		} else {
			req.tools = append(req.tools, t.Function.Name)
		}
	}
	var systems []string
	pending := map[string]bool{} // tool calls still waiting for a role=tool answer
	lastAssistant := -1
	for i, m := range in.Messages {
		text, err := openAIText(m.Content)
		if err != nil {
			return nil, &apiError{status: 400, typ: "invalid_request_error", param: fmt.Sprintf("messages.[%d].content", i), message: err.Error()}
		}
		if m.Role != "tool" && len(pending) > 0 {
			return nil, &apiError{status: 400, typ: "invalid_request_error", param: fmt.Sprintf("messages.[%d].role", i),
				message: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(sortedKeys(pending), ", ")}
		}
		switch m.Role {
		case "system", "developer":
			systems = append(systems, text)
		case "user":
			images, err := openAIImages(m.Content)
			if err != nil {
				return nil, &apiError{status: 400, typ: "invalid_request_error", param: fmt.Sprintf("messages.[%d].content", i), message: err.Error()}
			}
			req.messages = append(req.messages, LogMessage{Role: "user", Text: text, Images: images})
		case "assistant":
			msg := LogMessage{Role: "assistant", Text: text}
			for _, tc := range m.ToolCalls {
				pending[tc.ID] = true
				msg.ToolCalls = append(msg.ToolCalls, LogToolCall{ID: tc.ID, Name: tc.Function.Name, Input: argumentsJSON(tc.Function.Arguments)})
			}
			lastAssistant = len(req.messages)
			req.messages = append(req.messages, msg)
		case "tool":
			if !pending[m.ToolCallID] {
				return nil, &apiError{status: 400, typ: "invalid_request_error", param: fmt.Sprintf("messages.[%d].role", i),
					message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."}
			}
			if images, _ := openAIImages(m.Content); len(images) > 0 {
				return nil, &apiError{status: 400, typ: "invalid_request_error", param: fmt.Sprintf("messages.[%d].content", i),
					message: fmt.Sprintf("Invalid 'messages[%d]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL.", i)}
			}
			delete(pending, m.ToolCallID)
			req.messages = append(req.messages, LogMessage{Role: "tool", ToolResults: []LogToolResult{{ToolCallID: m.ToolCallID, Content: text}}})
		default:
			return nil, &apiError{status: 400, typ: "invalid_request_error", param: fmt.Sprintf("messages.[%d].role", i),
				message: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'tool', 'developer'.", m.Role)}
		}
	}
	req.system = strings.Join(systems, "\n")
	for _, m := range req.messages[lastAssistant+1:] {
		if m.Role == "tool" {
			req.lastTurnResults = append(req.lastTurnResults, m.ToolResults...)
		}
	}
	return req, nil
}

// openAIText reads message content: a string, null, or a list of parts
// whose text parts are joined by newlines.
func openAIText(raw json.RawMessage) (string, error) {
	return contentText(raw, "text")
}

// contentText reads message content in OpenAI's shapes: a string, null
// (""), or a list of content parts whose parts of the textTypes (and
// refusals) are joined by newlines; other parts carry no text.
func contentText(raw json.RawMessage, textTypes ...string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
		// EncryptedContent is the payload of a Codex multi_agent_v2
		// agent_message, which Codex sends as it is to a custom provider.
		EncryptedContent string `json:"encrypted_content"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content must be a string or an array of content parts: %v", err)
	}
	var texts []string
	for _, p := range parts {
		switch {
		case p.Type == "encrypted_content" && slices.Contains(textTypes, p.Type):
			texts = append(texts, p.EncryptedContent)
		case slices.Contains(textTypes, p.Type):
			texts = append(texts, p.Text)
		case p.Type == "refusal":
			texts = append(texts, p.Refusal)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// argumentsJSON is a tool call's argument string as JSON for the log: the
// arguments themselves when they are valid JSON, else a JSON string.
func argumentsJSON(args string) json.RawMessage {
	if json.Valid([]byte(args)) {
		return compactJSON(json.RawMessage(args))
	}
	quoted, _ := json.Marshal(args)
	return quoted
}

func compactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}
