package chat

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/atomic-agent/atomic/internal/provider"
)

// classify turns an error of one attempt into what the retry policy reads:
// ctx's error when the caller gave up; *provider.APIError for an HTTP error
// or an error object in the stream; *provider.ConnError when no HTTP answer
// came; *provider.StreamError for a stream that broke. Anything after a
// tool call went out is a StreamError with AfterToolCall set.
func classify(ctx context.Context, err error, x *exchange, toolSeen bool) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var apiErr *provider.APIError
	var sdkErr *sdk.Error
	var sse *ssestream.StreamError
	switch {
	case x.status >= 400:
		// The middleware saw the response: parse it ourselves, which also
		// covers bodies the SDK cannot read (Ollama, vLLM).
		apiErr = httpError(x.status, x.header, x.body)
	case errors.As(err, &sdkErr):
		apiErr = &provider.APIError{Provider: name, StatusCode: sdkErr.StatusCode, Type: sdkErr.Type, Code: sdkErr.Code, Message: sdkErr.Message}
		if sdkErr.Response != nil {
			apiErr.RetryAfter = provider.ParseRetryAfter(sdkErr.Response.Header, time.Now())
		}
	case errors.As(err, &sse):
		apiErr = streamedError(sse.Event.Data)
	}
	if apiErr != nil {
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

// errorBody is the union of the error shapes seen in the wild:
// OpenAI and OpenRouter {"error":{"message","type","code"}}, Ollama
// {"error":"..."}, vLLM {"object":"error","message","type","code"}, and
// FastAPI servers {"detail":"..."}.
type errorBody struct {
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Detail  json.RawMessage `json:"detail"`
}

type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// parseErrorBody reads an error's message, type and code (as text) from
// body, falling back to a short excerpt of a body that is not JSON.
func parseErrorBody(body []byte) (msg, typ, code string) {
	var b errorBody
	if json.Unmarshal(body, &b) != nil {
		s := provider.OneLine(string(body))
		if len(s) > 200 {
			s = strings.ToValidUTF8(s[:200], "") + "…"
		}
		return s, "", ""
	}
	var obj errorObject
	var str string
	switch {
	case json.Unmarshal(b.Error, &obj) == nil && (obj.Message != "" || obj.Type != ""):
		return obj.Message, obj.Type, rawText(obj.Code)
	case json.Unmarshal(b.Error, &str) == nil && str != "":
		return str, "", ""
	case b.Message != "" || b.Type != "":
		return b.Message, b.Type, rawText(b.Code)
	case len(b.Detail) > 0:
		if json.Unmarshal(b.Detail, &str) == nil {
			return str, "", ""
		}
		return provider.OneLine(string(b.Detail)), "", ""
	}
	return "", "", ""
}

// rawText is a JSON string's or number's text ("" for null or nothing).
func rawText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// httpError is the APIError of an HTTP error response.
func httpError(status int, h http.Header, body []byte) *provider.APIError {
	msg, typ, code := parseErrorBody(body)
	if typ == "" {
		typ = code
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	e := &provider.APIError{Provider: name, StatusCode: status, Type: typ, Code: code, Message: msg}
	if h != nil {
		e.RetryAfter = provider.ParseRetryAfter(h, time.Now())
	}
	return e
}

// streamedError is the APIError of an error object sent inside a 200
// stream. It gets an HTTP status so the retry policy can judge it: a
// numeric code when the server gave one (OpenRouter does), else one
// derived from the type, else 500: the server failed part way.
func streamedError(data []byte) *provider.APIError {
	msg, typ, code := parseErrorBody(data)
	status := http.StatusInternalServerError
	if n, err := strconv.Atoi(code); err == nil && n >= 400 && n <= 599 {
		status = n
	} else {
		switch {
		case strings.Contains(typ, "rate_limit") || strings.Contains(code, "rate_limit"):
			status = http.StatusTooManyRequests
		case strings.Contains(typ, "invalid_request"):
			status = http.StatusBadRequest
		}
	}
	if msg == "" {
		msg = "error"
	}
	return &provider.APIError{Provider: name, StatusCode: status, Type: typ, Code: code, Message: msg + " (error event in the stream)"}
}
