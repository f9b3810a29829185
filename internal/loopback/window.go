package loopback

import (
	"fmt"
	"net/http"
)

// EstimateTokens is the server's token count for size bytes of request
// body or prompt: one token per four bytes (like the real tokenizers on
// English and code), at least one. The request log's input_tokens, the
// usage the server reports by default, the context window check and the
// cache accounting all count with it, so a test can predict each figure.
func EstimateTokens(size int) int { return max(1, size/4) }

// windowFor is the context window of model, 0 when the scenario sets none.
func (sc *Scenario) windowFor(model string) int {
	if n, ok := sc.ContextWindows[model]; ok {
		return n
	}
	return sc.ContextWindow
}

// tooLong is each API's refusal of a request whose input exceeds the
// model's window, in the real services' words.
func tooLong(api string, tokens, window int) *apiError {
	switch api {
	case APIOpenAI:
		return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "messages", code: "context_length_exceeded",
			message: fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", window, tokens)}
	case APIResponses:
		return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "input", code: "context_length_exceeded",
			message: "Your input exceeds the context window of this model. Please adjust your input and try again."}
	}
	return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error",
		message: fmt.Sprintf("prompt is too long: %d tokens > %d maximum", tokens, window)}
}

// MaxInputTokens is the largest estimated input of the logged requests:
// a test's proof that a client never sent more than a window.
func MaxInputTokens(entries []LogEntry) int {
	n := 0
	for _, e := range entries {
		n = max(n, e.InputTokens)
	}
	return n
}
