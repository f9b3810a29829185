package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/atomic-agent/atomic/internal/provider"
)

// classify turns an error of one attempt into what the retry policy reads:
// ctx's error when the caller gave up; *provider.APIError for an HTTP error
// or an error event in the stream; *provider.ConnError when no HTTP answer
// came; *provider.StreamError for a stream that broke. Anything after a
// tool call went out is a StreamError with AfterToolCall set.
func classify(ctx context.Context, err error, toolSeen bool) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ae *sdk.Error
	if errors.As(err, &ae) {
		apiErr := apiError(ae)
		if toolSeen {
			return &provider.StreamError{Provider: name, AfterToolCall: true, Err: apiErr}
		}
		return apiErr
	}
	var ue *url.Error
	if errors.As(err, &ue) && !toolSeen {
		return &provider.ConnError{Provider: name, Err: err}
	}
	return &provider.StreamError{Provider: name, AfterToolCall: toolSeen, Err: err}
}

// apiError normalises the SDK's error. An error event inside a stream comes
// with the stream's 200 status; it gets the status its type stands for, so
// "overloaded_error" is a retryable 529 and "api_error" a 500.
func apiError(e *sdk.Error) *provider.APIError {
	typ := string(e.Type())
	status := e.StatusCode
	inStream := status < 400
	if inStream {
		status = statusOfType(typ)
	}
	msg := message(e.RawJSON())
	if msg == "" {
		msg = http.StatusText(status)
	}
	if inStream {
		msg += " (error event in the stream)"
	}
	out := &provider.APIError{Provider: name, StatusCode: status, Type: typ, Message: msg}
	if !inStream && e.Response != nil {
		out.RetryAfter = provider.ParseRetryAfter(e.Response.Header, time.Now())
	}
	return out
}

// statusOfType maps the API's error types to their HTTP statuses.
func statusOfType(typ string) int {
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
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "timeout_error":
		return http.StatusGatewayTimeout
	case "overloaded_error":
		return 529
	default: // "api_error" and types this version does not know
		return http.StatusInternalServerError
	}
}

// message reads the human message of an error body
// ({"type":"error","error":{"type":...,"message":...}}), or returns a short
// excerpt of a body that is not that.
func message(raw string) string {
	var env struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal([]byte(raw), &env) == nil {
		if env.Error.Message != "" {
			return env.Error.Message
		}
		if env.Message != "" {
			return env.Message
		}
		return ""
	}
	s := provider.OneLine(raw)
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}
