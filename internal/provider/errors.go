package provider

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"
)

// APIError is a failed HTTP exchange with a model API, normalised. An error
// the API reported inside an otherwise successful stream (Anthropic's
// "overloaded_error" event, say) is an APIError too, with the HTTP status
// that error type stands for.
type APIError struct {
	Provider   string
	StatusCode int
	// Type is the API's error type when it gave one (e.g. "overloaded_error").
	Type string
	// Code is the API's error code when it gave one besides the type
	// (OpenAI's "context_length_exceeded").
	Code       string
	Message    string
	RetryAfter time.Duration
}

// Error is one line: provider, status, the API's type and message, and a
// hint for the statuses a user can fix (401, 403, 404).
func (e *APIError) Error() string {
	hint := ""
	switch e.StatusCode {
	case 401:
		hint = ": the API key was rejected (check the key flag, config or environment variable)"
	case 403:
		hint = ": the API key may not use this model or endpoint"
	case 404:
		hint = ": not found (check the model name and the base URL)"
	}
	msg := OneLine(e.Message)
	if msg == "" {
		msg = "request failed"
	}
	if t := OneLine(e.Type); t != "" && !strings.Contains(msg, t) {
		msg = t + ": " + msg
	}
	return fmt.Sprintf("%s: HTTP %d %s%s", e.Provider, e.StatusCode, msg, hint)
}

// Retryable reports whether the request may succeed if sent again: request
// timeout, conflict, rate limit, and server errors (Anthropic's 529
// "overloaded" included).
func (e *APIError) Retryable() bool {
	return e.StatusCode == 408 || e.StatusCode == 409 || e.StatusCode == 429 || e.StatusCode >= 500
}

// StreamError is a stream that broke after it started: the connection was
// cut, the server sent something that is not the protocol, or the stream
// ended before its end marker.
type StreamError struct {
	Provider string
	// AfterToolCall is set when at least one tool call had been emitted,
	// which makes the turn unsafe to retry.
	AfterToolCall bool
	Err           error
}

func (e *StreamError) Error() string {
	if e.AfterToolCall {
		return fmt.Sprintf("%s: stream broke after a tool call had been received, so the turn was not retried: %s", e.Provider, cause(e.Provider, e.Err))
	}
	return fmt.Sprintf("%s: stream broke: %s", e.Provider, cause(e.Provider, e.Err))
}

func (e *StreamError) Unwrap() error { return e.Err }

// ConnError is a request that got no HTTP answer at all: connection refused
// or reset, DNS failure, TLS failure. It is worth retrying (a refused
// connection only briefly, see RetryPolicy).
type ConnError struct {
	Provider string
	Err      error
}

// Error names the URL that could not be reached; a refused connection asks
// whether the server is running, the usual cause with a local server.
func (e *ConnError) Error() string {
	u := e.URL()
	switch {
	case u != "" && e.Refused():
		return fmt.Sprintf("%s: cannot connect to %s (connection refused): is the server running?", e.Provider, u)
	case u != "":
		var ue *url.Error
		errors.As(e.Err, &ue)
		return fmt.Sprintf("%s: cannot reach %s: %s", e.Provider, u, cause(e.Provider, ue.Err))
	}
	return fmt.Sprintf("%s: cannot reach the API: %s", e.Provider, cause(e.Provider, e.Err))
}

func (e *ConnError) Unwrap() error { return e.Err }

// URL is the address the request went to, when the error names it.
func (e *ConnError) URL() string {
	var ue *url.Error
	if errors.As(e.Err, &ue) {
		return ue.URL
	}
	return ""
}

// Refused reports whether nothing listened at the address.
func (e *ConnError) Refused() bool { return errors.Is(e.Err, syscall.ECONNREFUSED) }

// Local reports whether the address is on this machine or the local
// network: a loopback, private or link-local IP, or "localhost".
func (e *ConnError) Local() bool {
	var oe *net.OpError
	if errors.As(e.Err, &oe) {
		if a, ok := oe.Addr.(*net.TCPAddr); ok && a.IP != nil {
			return localIP(a.IP)
		}
	}
	u, err := url.Parse(e.URL())
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && localIP(ip)
}

func localIP(ip net.IP) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified()
}

// Reason says in a few words why an attempt failed, for the retry notice:
// "429 rate limited", "529 overloaded", "503 service unavailable",
// "connection refused", "stream cut".
func Reason(err error) string {
	var ae *APIError
	if errors.As(err, &ae) {
		switch ae.StatusCode {
		case http.StatusTooManyRequests:
			return "429 rate limited"
		case 529:
			return "529 overloaded"
		}
		if t := http.StatusText(ae.StatusCode); t != "" {
			return fmt.Sprintf("%d %s", ae.StatusCode, strings.ToLower(t))
		}
		return fmt.Sprintf("HTTP %d", ae.StatusCode)
	}
	var ce *ConnError
	if errors.As(err, &ce) {
		switch {
		case ce.Refused():
			return "connection refused"
		case errors.Is(err, syscall.ECONNRESET):
			return "connection reset"
		case errors.Is(err, os.ErrDeadlineExceeded):
			return "connection timed out"
		}
		var de *net.DNSError
		if errors.As(err, &de) {
			return "host not found"
		}
		return "connection failed"
	}
	var se *StreamError
	if errors.As(err, &se) {
		return "stream cut"
	}
	return "error"
}

// IsRetryable reports whether err is worth another attempt. A stream that
// broke after a tool call never is, whatever broke it, because the caller
// may already have acted on the call.
func IsRetryable(err error) bool {
	var se *StreamError
	if errors.As(err, &se) && se.AfterToolCall {
		return false
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Retryable()
	}
	if se != nil {
		return true
	}
	var ce *ConnError
	return errors.As(err, &ce)
}

// OneLine collapses s to a single trimmed line so error texts stay one line
// however the server formatted its message.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// cause is err's text on one line, without a leading "provider: " that
// the wrapping error already shows.
func cause(provider string, err error) string {
	if err == nil {
		return "unknown error"
	}
	s := OneLine(err.Error())
	if provider != "" {
		s = strings.TrimPrefix(s, provider+": ")
	}
	return s
}

// IsContextTooLong reports whether err is the provider refusing a request
// whose input exceeds the model's context window: Anthropic's 400 "prompt
// is too long: N tokens > W maximum", OpenAI's context_length_exceeded.
// Retrying the same request cannot help; a shorter history can.
func IsContextTooLong(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest && ae.StatusCode != http.StatusRequestEntityTooLarge {
		return false
	}
	if ae.Code == "context_length_exceeded" || ae.Type == "context_length_exceeded" {
		return true
	}
	m := strings.ToLower(ae.Message)
	for _, s := range []string{"prompt is too long", "context_length_exceeded", "maximum context length", "exceeds the context window", "input is too long"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}
