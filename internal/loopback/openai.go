package loopback

import (
	"net/http"
	"time"
)

// OpenAI Chat Completions wire format
// (https://platform.openai.com/docs/api-reference/chat).

type openAIErrorBody struct {
	Error openAIErrDetail `json:"error"`
}

type openAIErrDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func openAIErrorDefaults(status int) (typ, code string) {
	switch status {
	case http.StatusUnauthorized:
		return "invalid_request_error", "invalid_api_key"
	case http.StatusTooManyRequests:
		return "requests", "rate_limit_exceeded"
	}
	if status >= 500 {
		return "server_error", ""
	}
	return "invalid_request_error", ""
}

func openAIError(e *apiError) []byte {
	typ, code := openAIErrorDefaults(e.status)
	if e.typ != "" {
		typ = e.typ
	}
	if e.code != "" {
		code = e.code
	}
	msg := e.message
	if msg == "" {
		msg = statusText(e.status)
	}
	return mustJSON(openAIErrorBody{Error: openAIErrDetail{Message: msg, Type: typ, Param: nilIfEmpty(e.param), Code: nilIfEmpty(code)}})
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

type openAIFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type openAIToolCall struct {
	Index    *int           `json:"index,omitempty"` // stream deltas only
	ID       string         `json:"id,omitempty"`
	Type     string         `json:"type,omitempty"`
	Function openAIFunction `json:"function"`
}

type openAIUsage struct {
	PromptTokens            int            `json:"prompt_tokens"`
	CompletionTokens        int            `json:"completion_tokens"`
	TotalTokens             int            `json:"total_tokens"`
	PromptTokensDetails     map[string]int `json:"prompt_tokens_details"`
	CompletionTokensDetails map[string]int `json:"completion_tokens_details"`
}

// openAIUsageOf is the answer's usage: prompt tokens include the cached
// ones, completion tokens the reasoning ones, as the real API counts.
func openAIUsageOf(a *answer) *openAIUsage {
	return &openAIUsage{
		PromptTokens: a.usage.InputTokens, CompletionTokens: a.usage.OutputTokens, TotalTokens: a.usage.InputTokens + a.usage.OutputTokens,
		PromptTokensDetails:     map[string]int{"cached_tokens": a.cache.read, "audio_tokens": 0},
		CompletionTokensDetails: map[string]int{"reasoning_tokens": a.thinkingTokens, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
	}
}

// openAIBody is the non-streaming answer.
func openAIBody(a *answer, created time.Time) []byte {
	message := map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}}
	if a.text != "" || len(a.calls) == 0 {
		message["content"] = a.text
	}
	if len(a.calls) > 0 {
		calls := make([]openAIToolCall, 0, len(a.calls))
		for _, c := range a.calls {
			calls = append(calls, openAIToolCall{ID: c.id, Type: "function", Function: openAIFunction{Name: c.name, Arguments: string(c.input)}})
		}
		message["tool_calls"] = calls
	}
	return mustJSON(map[string]any{
		"id": a.id, "object": "chat.completion", "created": created.Unix(), "model": a.model,
		"system_fingerprint": "fp_loopback",
		"choices": []any{map[string]any{
			"index": 0, "message": message, "logprobs": nil, "finish_reason": a.stop,
		}},
		"usage": openAIUsageOf(a),
	})
}

// openAIEvents is the streamed answer: chat.completion.chunk objects with
// a role delta, content deltas, tool call deltas (id, type and name first,
// then the arguments in pieces), a finish_reason chunk, a usage chunk when
// asked for, and [DONE].
func openAIEvents(a *answer, created time.Time, includeUsage bool) []sseEvent {
	chunk := func(delta map[string]any, finish any) sseEvent {
		c := map[string]any{
			"id": a.id, "object": "chat.completion.chunk", "created": created.Unix(), "model": a.model,
			"system_fingerprint": "fp_loopback",
			"choices": []any{map[string]any{
				"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish,
			}},
		}
		if includeUsage {
			c["usage"] = nil
		}
		return sseEvent{data: mustJSON(c)}
	}
	var events []sseEvent
	if a.text != "" || len(a.calls) == 0 {
		events = append(events, chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil))
		for _, piece := range splitText(a.text, 16, 2) {
			d := chunk(map[string]any{"content": piece}, nil)
			d.delta = true
			events = append(events, d)
		}
	}
	for k, c := range a.calls {
		index := k
		first := map[string]any{"tool_calls": []openAIToolCall{{
			Index: &index, ID: c.id, Type: "function", Function: openAIFunction{Name: c.name, Arguments: ""},
		}}}
		if k == 0 && a.text == "" {
			first["role"] = "assistant"
			first["content"] = nil
		}
		events = append(events, chunk(first, nil))
		for _, piece := range splitText(string(c.input), 24, 3) {
			d := chunk(map[string]any{"tool_calls": []openAIToolCall{{
				Index: &index, Function: openAIFunction{Arguments: piece},
			}}}, nil)
			d.delta = true
			events = append(events, d)
		}
	}
	events = append(events, chunk(map[string]any{}, a.stop))
	if includeUsage {
		events = append(events, sseEvent{data: mustJSON(map[string]any{
			"id": a.id, "object": "chat.completion.chunk", "created": created.Unix(), "model": a.model,
			"system_fingerprint": "fp_loopback", "choices": []any{}, "usage": openAIUsageOf(a),
		})})
	}
	return append(events, sseEvent{data: []byte("[DONE]")})
}

// openAIStreamError is the in-stream error chunk.
func openAIStreamError(typ, message string) sseEvent {
	if message == "" {
		message = statusText(statusForErrorType(typ))
	}
	return sseEvent{data: mustJSON(openAIErrorBody{Error: openAIErrDetail{Message: message, Type: typ}})}
}

// openAIMalformed is a chunk whose JSON is cut off.
func openAIMalformed(a *answer) sseEvent {
	return sseEvent{data: []byte(`{"id":"` + a.id + `","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"broken`)}
}
