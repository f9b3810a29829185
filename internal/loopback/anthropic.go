package loopback

import (
	"encoding/json"
	"net/http"
)

// Anthropic Messages API wire format (https://docs.anthropic.com/en/api/messages,
// .../messages-streaming, .../errors).

type anthropicErrorBody struct {
	Type      string             `json:"type"` // "error"
	Error     anthropicErrDetail `json:"error"`
	RequestID string             `json:"request_id,omitempty"`
}

type anthropicErrDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusPaymentRequired:
		return "billing_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusGatewayTimeout:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

func anthropicError(e *apiError, requestID string) []byte {
	typ := e.typ
	if typ == "" {
		typ = anthropicErrorType(e.status)
	}
	msg := e.message
	if msg == "" {
		msg = statusText(e.status)
	}
	return mustJSON(anthropicErrorBody{Type: "error", Error: anthropicErrDetail{Type: typ, Message: msg}, RequestID: requestID})
}

type anthropicUsage struct {
	InputTokens              int  `json:"input_tokens"`
	OutputTokens             int  `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

type anthropicMessage struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"` // "message"
	Role         string           `json:"role"`
	Model        string           `json:"model"`
	Content      []map[string]any `json:"content"`
	StopReason   *string          `json:"stop_reason"`
	StopSequence *string          `json:"stop_sequence"`
	Usage        anthropicUsage   `json:"usage"`
}

// anthropicUsageOf is the answer's usage with its cache counts; output is
// the output tokens so far.
func anthropicUsageOf(a *answer, output int) anthropicUsage {
	read, write := a.cache.read, a.cache.write
	return anthropicUsage{InputTokens: a.anthropicInput(), OutputTokens: output, CacheCreationInputTokens: &write, CacheReadInputTokens: &read}
}

// anthropicBody is the non-streaming answer.
func anthropicBody(a *answer) []byte {
	msg := anthropicMessage{
		ID: a.id, Type: "message", Role: "assistant", Model: a.model,
		Content:    []map[string]any{},
		StopReason: &a.stop,
		Usage:      anthropicUsageOf(a, a.usage.OutputTokens),
	}
	if a.thinking != "" {
		msg.Content = append(msg.Content, map[string]any{"type": "thinking", "thinking": a.thinking, "signature": a.signature})
	}
	if a.text != "" {
		msg.Content = append(msg.Content, map[string]any{"type": "text", "text": a.text})
	}
	for _, c := range a.calls {
		msg.Content = append(msg.Content, map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": json.RawMessage(c.input)})
	}
	return mustJSON(msg)
}

// anthropicEvents is the streamed answer: message_start, a ping, each
// content block (start, deltas, stop), message_delta, message_stop.
func anthropicEvents(a *answer) []sseEvent {
	ev := func(name string, v any) sseEvent { return sseEvent{name: name, data: mustJSON(v)} }
	start := anthropicMessage{
		ID: a.id, Type: "message", Role: "assistant", Model: a.model,
		Content: []map[string]any{},
		Usage:   anthropicUsageOf(a, 1),
	}
	events := []sseEvent{
		ev("message_start", map[string]any{"type": "message_start", "message": start}),
		ev("ping", map[string]any{"type": "ping"}),
	}
	index := 0
	if a.thinking != "" {
		events = append(events, ev("content_block_start", map[string]any{
			"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""},
		}))
		for _, piece := range splitText(a.thinking, 16, 2) {
			d := ev("content_block_delta", map[string]any{
				"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "thinking_delta", "thinking": piece},
			})
			d.delta = true
			events = append(events, d)
		}
		events = append(events,
			ev("content_block_delta", map[string]any{
				"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "signature_delta", "signature": a.signature},
			}),
			ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}))
		index++
	}
	if a.text != "" {
		events = append(events, ev("content_block_start", map[string]any{
			"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "text", "text": ""},
		}))
		for _, piece := range splitText(a.text, 16, 2) {
			d := ev("content_block_delta", map[string]any{
				"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "text_delta", "text": piece},
			})
			d.delta = true
			events = append(events, d)
		}
		events = append(events, ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}))
		index++
	}
	for _, c := range a.calls {
		events = append(events, ev("content_block_start", map[string]any{
			"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": map[string]any{}},
		}))
		for _, piece := range append([]string{""}, splitText(string(c.input), 24, 3)...) {
			d := ev("content_block_delta", map[string]any{
				"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": piece},
			})
			d.delta = piece != ""
			events = append(events, d)
		}
		events = append(events, ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}))
		index++
	}
	events = append(events,
		ev("message_delta", map[string]any{
			"type":  "message_delta",
			"delta": map[string]any{"stop_reason": a.stop, "stop_sequence": nil},
			"usage": map[string]any{
				"input_tokens": a.anthropicInput(), "output_tokens": a.usage.OutputTokens,
				"cache_creation_input_tokens": a.cache.write, "cache_read_input_tokens": a.cache.read,
			},
		}),
		ev("message_stop", map[string]any{"type": "message_stop"}),
	)
	return events
}

// anthropicStreamError is the in-stream error event.
func anthropicStreamError(typ, message string) sseEvent {
	if message == "" {
		message = statusText(statusForErrorType(typ))
	}
	return sseEvent{name: "error", data: mustJSON(anthropicErrorBody{Type: "error", Error: anthropicErrDetail{Type: typ, Message: message}})}
}

// anthropicMalformed is a delta event whose JSON is cut off.
func anthropicMalformed() sseEvent {
	return sseEvent{name: "content_block_delta", data: []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"broken`)}
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic("loopback: encoding a response: " + err.Error()) // only fixed, encodable types reach here
	}
	return data
}
