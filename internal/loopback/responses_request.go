package loopback

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// OpenAI Responses API requests
// (https://platform.openai.com/docs/api-reference/responses/create), as
// Codex sends them: instructions, input items, tools of many types, and
// settings (reasoning, store, include, prompt_cache_key, ...) that the
// server accepts and, where the real API does, echoes.

// responsesRequest is what a Responses request carries beyond the
// API-neutral request: what the answer echoes and how its tool calls are
// shaped.
type responsesRequest struct {
	instructions      *string
	tools             json.RawMessage // echoed in the response object
	toolChoice        json.RawMessage
	parallelToolCalls bool
	previousID        string
	store             bool
	// custom names the tools declared as custom (freeform): a call of one
	// is a custom_tool_call with a text input.
	custom map[string]bool
	// namespaces maps a tool declared inside a namespace tool to that
	// namespace, which its calls carry.
	namespaces map[string]string
	// summary is reasoning.summary (auto, concise, detailed): the
	// reasoning item carries its text as a summary.
	summary string
	effort  string // reasoning.effort, echoed
	// encrypted: include has reasoning.encrypted_content, so the
	// reasoning item carries it.
	encrypted bool
}

// responsesTool is a declared tool of any type; only function, custom and
// namespace tools are called back as function or custom tool calls, the
// others (local_shell, web_search, tool_search, image_generation, ...) are
// known by their name or, lacking one, their type.
type responsesTool struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Tools []responsesTool `json:"tools"` // a namespace's members
}

type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ID        string          `json:"id"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
	// EncryptedContent is a reasoning item's sealed thinking.
	EncryptedContent *string `json:"encrypted_content"`
}

func responsesBadRequest(param, code, format string, args ...any) *apiError {
	return &apiError{status: 400, typ: "invalid_request_error", param: param, code: code, message: fmt.Sprintf(format, args...)}
}

// parseResponses reads a Responses API request body and checks it the way
// the real API does for the mistakes a client is likely to make.
//
// Calls of one model turn join one assistant message, as in the other
// APIs, even when the client sends each call's output right after it
// (Codex does: call 1, output 1, call 2, output 2). Interleaved, parallel
// calls look like successive turns, so sameTurn, when given, says whether
// two call ids came in the same answer; without it each call after an
// output starts a new turn.
func parseResponses(body []byte, sameTurn func(callA, callB string) bool) (*request, *apiError) {
	var in struct {
		Model              string          `json:"model"`
		Instructions       *string         `json:"instructions"`
		Input              json.RawMessage `json:"input"`
		Tools              json.RawMessage `json:"tools"`
		ToolChoice         json.RawMessage `json:"tool_choice"`
		ParallelToolCalls  *bool           `json:"parallel_tool_calls"`
		PreviousResponseID string          `json:"previous_response_id"`
		Store              *bool           `json:"store"`
		Stream             bool            `json:"stream"`
		Reasoning          *struct {
			Effort  string `json:"effort"`
			Summary string `json:"summary"`
		} `json:"reasoning"`
		Include        []string `json:"include"`
		PromptCacheKey string   `json:"prompt_cache_key"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, badRequest("We could not parse the JSON body of your request: %v", err)
	}
	if in.Model == "" {
		return nil, responsesBadRequest("model", "missing_required_parameter", "Missing required parameter: 'model'.")
	}
	rr := &responsesRequest{
		instructions: in.Instructions, toolChoice: in.ToolChoice, previousID: in.PreviousResponseID,
		parallelToolCalls: in.ParallelToolCalls == nil || *in.ParallelToolCalls,
		store:             in.Store == nil || *in.Store,
		custom:            map[string]bool{}, namespaces: map[string]string{},
	}
	rr.encrypted = slices.Contains(in.Include, "reasoning.encrypted_content")
	req := &request{api: APIResponses, model: in.Model, stream: in.Stream, bodySize: len(body), responses: rr, promptCacheKey: in.PromptCacheKey}
	if r := in.Reasoning; r != nil {
		req.effort, rr.summary = r.Effort, r.Summary
		if req.effort == "" {
			req.effort = "medium" // the API's default once reasoning is asked for
		}
		rr.effort = req.effort
	}
	if err := req.readResponsesTools(in.Tools); err != nil {
		return nil, err
	}
	items, err := responsesInput(in.Input)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 && in.PreviousResponseID == "" {
		return nil, responsesBadRequest("input", "missing_required_parameter", "Missing required parameter: 'input'.")
	}
	var systems []string
	if in.Instructions != nil && *in.Instructions != "" {
		systems = append(systems, *in.Instructions)
	}
	// Without previous_response_id the input is the whole conversation, so
	// every call has its output in it and every output its call.
	checkPairs := in.PreviousResponseID == ""
	pending := map[string]bool{}
	lastAssistant := -1
	// assistant is the assistant message that consecutive output items
	// (text, function calls) of one model turn join.
	assistant := func() *LogMessage {
		if n := len(req.messages); n == 0 || req.messages[n-1].Role != "assistant" {
			req.messages = append(req.messages, LogMessage{Role: "assistant"})
		}
		lastAssistant = len(req.messages) - 1
		return &req.messages[lastAssistant]
	}
	// turnOf is the assistant message whose calls came in the same answer
	// as call id, when only outputs of that answer's calls followed it.
	turnOf := func(id string) *LogMessage {
		if sameTurn == nil || lastAssistant < 0 || len(req.messages[lastAssistant].ToolCalls) == 0 {
			return nil
		}
		for _, m := range req.messages[lastAssistant+1:] {
			if m.Role != "tool" {
				return nil
			}
		}
		m := &req.messages[lastAssistant]
		if !sameTurn(m.ToolCalls[0].ID, id) {
			return nil
		}
		return m
	}
	for i, it := range items {
		if it.Type == "" && it.Role != "" {
			it.Type = "message" // the short form {role, content}
		}
		switch it.Type {
		case "message":
			text, err := responsesText(it.Content)
			if err != nil {
				return nil, responsesBadRequest(fmt.Sprintf("input[%d].content", i), "invalid_type", "%v", err)
			}
			switch it.Role {
			case "system", "developer":
				systems = append(systems, text)
			case "user":
				req.messages = append(req.messages, LogMessage{Role: "user", Text: text})
			case "assistant":
				m := assistant()
				m.Text = joinNonEmpty(m.Text, text)
			default:
				return nil, responsesBadRequest(fmt.Sprintf("input[%d].role", i), "invalid_value",
					"Invalid value: '%s'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", it.Role)
			}
		case "function_call", "custom_tool_call", "local_shell_call":
			call, err := responsesCall(i, it)
			if err != nil {
				return nil, err
			}
			pending[call.ID] = true
			m := turnOf(call.ID)
			if m == nil {
				m = assistant()
			}
			m.ToolCalls = append(m.ToolCalls, call)
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			id := it.CallID
			if id == "" {
				id = it.ID // local_shell_call_output names its call by id
			}
			if id == "" {
				return nil, responsesBadRequest(fmt.Sprintf("input[%d].call_id", i), "missing_required_parameter", "Missing required parameter: 'input[%d].call_id'.", i)
			}
			if checkPairs && !pending[id] {
				return nil, responsesBadRequest("input", "", "No tool call found for function call output with call_id %s.", id)
			}
			delete(pending, id)
			content, err := responsesOutputText(it.Output)
			if err != nil {
				return nil, responsesBadRequest(fmt.Sprintf("input[%d].output", i), "invalid_type", "%v", err)
			}
			req.messages = append(req.messages, LogMessage{Role: "tool", ToolResults: []LogToolResult{{ToolCallID: id, Content: content}}})
		case "agent_message":
			// Codex multi_agent_v2: one agent's message to another (the
			// lead's task for a child, a child's final answer), a header
			// in input_text and the payload in encrypted_content. It
			// reaches the model as user text, so rules match on it.
			text, err := contentText(it.Content, "input_text", "encrypted_content")
			if err != nil {
				return nil, responsesBadRequest(fmt.Sprintf("input[%d].content", i), "invalid_type", "%v", err)
			}
			req.messages = append(req.messages, LogMessage{Role: "user", Text: text})
		case "reasoning":
			if it.EncryptedContent != nil {
				req.thinkingBack = append(req.thinkingBack, thinkingBlock{msg: i, id: it.ID, signature: *it.EncryptedContent})
			}
		default:
			// web_search_call, compaction, item_reference and
			// item types this server does not know carry no conversation
			// text it matches on.
		}
	}
	if checkPairs && len(pending) > 0 {
		return nil, responsesBadRequest("input", "", "No tool output found for function call %s.", strings.Join(sortedKeys(pending), ", "))
	}
	req.system = strings.Join(systems, "\n")
	for _, m := range req.messages[lastAssistant+1:] {
		if m.Role == "tool" {
			req.lastTurnResults = append(req.lastTurnResults, m.ToolResults...)
		}
	}
	if req.promptCacheKey != "" {
		req.cacheBlocks = responsesCacheBlocks(in.Instructions, in.Tools, in.Input)
	}
	return req, nil
}

// responsesCacheBlocks is a Responses prompt in caching order:
// instructions, tools, input items.
func responsesCacheBlocks(instructions *string, tools, input json.RawMessage) []cacheBlock {
	var blocks []cacheBlock
	if instructions != nil {
		blocks = append(blocks, cacheBlock{place: "instructions", canon: mustJSON(*instructions)})
	}
	var list []json.RawMessage
	_ = json.Unmarshal(tools, &list) // checked by readResponsesTools
	blocks = openAICacheBlocks("tools", list, 0, blocks)
	list = blockList(input) // a string input is one message
	return openAICacheBlocks("input", list, 0, blocks)
}

// readResponsesTools records the declared tools' names, which custom
// tools and namespaces declare, and keeps the list to echo.
func (req *request) readResponsesTools(raw json.RawMessage) *apiError {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var tools []responsesTool
	if err := json.Unmarshal(raw, &tools); err != nil {
		return responsesBadRequest("tools", "invalid_type", "Invalid type for 'tools': expected an array of tools: %v", err)
	}
	rr := req.responses
	rr.tools = raw
	for i, t := range tools {
		switch t.Type {
		case "":
			return responsesBadRequest(fmt.Sprintf("tools[%d].type", i), "missing_required_parameter", "Missing required parameter: 'tools[%d].type'.", i)
		case "function", "custom", "namespace":
			if t.Name == "" {
				return responsesBadRequest(fmt.Sprintf("tools[%d].name", i), "missing_required_parameter", "Missing required parameter: 'tools[%d].name'.", i)
			}
		}
		name := t.Name
		if name == "" {
			name = t.Type // local_shell, web_search, image_generation, ...
		}
		req.tools = append(req.tools, name)
		switch t.Type {
		case "custom":
			rr.custom[t.Name] = true
		case "namespace":
			for j, m := range t.Tools {
				if m.Name == "" {
					return responsesBadRequest(fmt.Sprintf("tools[%d].tools[%d].name", i, j), "missing_required_parameter", "Missing required parameter: 'tools[%d].tools[%d].name'.", i, j)
				}
				req.tools = append(req.tools, m.Name)
				rr.namespaces[m.Name] = t.Name
				if m.Type == "custom" {
					rr.custom[m.Name] = true
				}
			}
		}
	}
	return nil
}

// responsesInput reads input: a string (one user message) or a list of
// items.
func responsesInput(raw json.RawMessage) ([]responsesItem, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, responsesBadRequest("input", "invalid_type", "Invalid 'input': %v", err)
		}
		text, _ := json.Marshal(s)
		return []responsesItem{{Type: "message", Role: "user", Content: text}}, nil
	}
	var items []responsesItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, responsesBadRequest("input", "invalid_type", "Invalid type for 'input': expected a string or an array of input items: %v", err)
	}
	return items, nil
}

// responsesCall reads a call item the client sends back: function_call,
// custom_tool_call or local_shell_call.
func responsesCall(i int, it responsesItem) (LogToolCall, *apiError) {
	missing := func(field string) *apiError {
		return responsesBadRequest(fmt.Sprintf("input[%d].%s", i, field), "missing_required_parameter", "Missing required parameter: 'input[%d].%s'.", i, field)
	}
	id := it.CallID
	if id == "" && it.Type == "local_shell_call" {
		id = it.ID
	}
	if id == "" {
		return LogToolCall{}, missing("call_id")
	}
	switch it.Type {
	case "local_shell_call":
		return LogToolCall{ID: id, Name: "local_shell", Input: compactJSON(it.Action)}, nil
	case "custom_tool_call":
		if it.Name == "" {
			return LogToolCall{}, missing("name")
		}
		var input string
		if err := json.Unmarshal(it.Input, &input); err != nil {
			return LogToolCall{}, responsesBadRequest(fmt.Sprintf("input[%d].input", i), "invalid_type", "Invalid type for 'input[%d].input': expected a string.", i)
		}
		quoted, _ := json.Marshal(input)
		return LogToolCall{ID: id, Name: it.Name, Input: quoted}, nil
	}
	if it.Name == "" {
		return LogToolCall{}, missing("name")
	}
	var args string
	if err := json.Unmarshal(it.Arguments, &args); err != nil {
		return LogToolCall{}, responsesBadRequest(fmt.Sprintf("input[%d].arguments", i), "invalid_type", "Invalid type for 'input[%d].arguments': expected a string.", i)
	}
	return LogToolCall{ID: id, Name: it.Name, Input: argumentsJSON(args)}, nil
}

// responsesText reads message content: a string or a list of content
// parts whose text parts (input_text, output_text, refusal) are joined by
// newlines; images, files and audio carry no text.
func responsesText(raw json.RawMessage) (string, error) {
	if raw = bytes.TrimSpace(raw); len(raw) == 0 || string(raw) == "null" {
		return "", fmt.Errorf("Missing required parameter: content.")
	}
	return contentText(raw, "input_text", "output_text", "text", "summary_text")
}

// responsesOutputText reads a tool output: a string, a list of content
// parts, or an object with a content string.
func responsesOutputText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '{' {
		var obj struct {
			Content string `json:"content"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return "", fmt.Errorf("output must be a string or an array of content parts: %v", err)
		}
		return obj.Content, nil
	}
	return responsesText(raw)
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
