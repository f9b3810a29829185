package loopback

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// answer is a scripted Response made concrete for one request: ids
// assigned, tool inputs encoded, stop reason and usage decided.
type answer struct {
	id    string // message id (msg_... / chatcmpl-... / resp_...)
	msgID string // Responses API: the output message item's id
	model string
	text  string
	calls []answerCall
	stop  string // in the request's API vocabulary
	usage Usage
	// thinking is the thinking text sent when the request asks for it;
	// signature signs an Anthropic thinking block, sealed is a Responses
	// reasoning item's encrypted_content when asked for, reasoningID
	// that item's id.
	thinking, signature, sealed, reasoningID string
	// thinkingTokens are the output tokens spent thinking.
	thinkingTokens int
	cache          cacheResult
}

// anthropicInput is the input tokens Anthropic reports beside the cache
// counts: those neither read from nor written to the cache.
func (a *answer) anthropicInput() int {
	return max(0, a.usage.InputTokens-a.cache.read-a.cache.write)
}

type answerCall struct {
	id    string
	name  string
	input []byte // a JSON object; a custom tool call's text input
	// Responses API only.
	itemID    string // the output item's id (fc_... / ctc_...), not the call_id
	custom    bool   // a custom_tool_call of a freeform tool
	namespace string // the namespace the request declared the tool in
}

// newAnswer resolves resp for req; nextID hands out server-unique ids.
func newAnswer(resp *Response, req *request, nextID func(prefix string) string) (*answer, error) {
	a := &answer{model: req.model, text: resp.Text, stop: resp.stopReasonFor(req.api), thinking: thinkingFor(resp, req)}
	callPrefix := "toolu_lb"
	switch req.api {
	case APIOpenAI:
		callPrefix = "call_lb"
		a.id = nextID("chatcmpl-lb")
	case APIResponses:
		callPrefix = "call_lb"
		a.id = nextID("resp_lb")
		if a.thinking != "" {
			a.reasoningID = nextID("rs_lb")
		}
		if resp.Text != "" || len(resp.ToolCalls) == 0 {
			a.msgID = nextID("msg_lb")
		}
	default:
		a.id = nextID("msg_lb")
	}
	outSize := len(resp.Text)
	for i, tc := range resp.ToolCalls {
		input := []byte("{}")
		fields := tc.Input
		if c := tc.Collect; c != nil {
			fields = make(map[string]any, len(tc.Input)+1)
			for k, v := range tc.Input {
				fields[k] = v
			}
			fields[c.Into] = req.collect(c.JSONField)
		}
		if len(fields) > 0 {
			var err error
			if input, err = json.Marshal(fields); err != nil {
				return nil, fmt.Errorf("tool_calls[%d].input: %w", i, err)
			}
		}
		id := tc.ID
		if id == "" {
			id = nextID(callPrefix)
		}
		c := answerCall{id: id, name: tc.Name, input: input}
		if rr := req.responses; rr != nil {
			c.namespace = rr.namespaces[tc.Name]
			c.custom = rr.custom[tc.Name]
			c.itemID = nextID("fc_lb")
			if c.custom {
				c.itemID = nextID("ctc_lb")
				if text, ok := tc.Input["input"].(string); ok {
					c.input = []byte(text)
				}
			}
		}
		a.calls = append(a.calls, c)
		outSize += len(tc.Name) + len(c.input)
	}
	if a.thinking != "" {
		a.thinkingTokens = EstimateTokens(len(a.thinking))
	}
	if resp.Usage != nil {
		a.usage = *resp.Usage
	} else {
		a.usage = Usage{InputTokens: EstimateTokens(req.bodySize), OutputTokens: EstimateTokens(outSize) + a.thinkingTokens}
	}
	return a, nil
}

// splitText cuts s into pieces of about size runes, at least minPieces
// when s is long enough, never splitting a rune, so streams carry several
// deltas as real ones do.
func splitText(s string, size, minPieces int) []string {
	runes := []rune(s)
	if len(runes) == 0 {
		return nil
	}
	pieces := max((len(runes)+size-1)/size, min(minPieces, len(runes)))
	out := make([]string, 0, pieces)
	for i := range pieces {
		lo := i * len(runes) / pieces
		hi := (i + 1) * len(runes) / pieces
		out = append(out, string(runes[lo:hi]))
	}
	return out
}

// statusForErrorType is the HTTP status an API uses for an error type, for
// answering a non-streaming request scripted with a stream_error.
func statusForErrorType(typ string) int {
	switch typ {
	case "invalid_request_error":
		return http.StatusBadRequest
	case "authentication_error":
		return http.StatusUnauthorized
	case "billing_error":
		return http.StatusPaymentRequired
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "request_too_large":
		return http.StatusRequestEntityTooLarge
	case "rate_limit_error", "requests", "tokens", "insufficient_quota":
		return http.StatusTooManyRequests
	case "timeout_error":
		return http.StatusGatewayTimeout
	case "overloaded_error":
		return 529
	}
	return http.StatusInternalServerError
}

// statusText is the default error message for status.
func statusText(status int) string {
	if status == 529 {
		return "Overloaded"
	}
	if t := http.StatusText(status); t != "" {
		return t
	}
	return fmt.Sprintf("HTTP %d", status)
}
