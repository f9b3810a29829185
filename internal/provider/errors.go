package provider

import (
	"errors"
	"fmt"
	"time"
)

// APIError is a failed HTTP exchange with a model API, normalised.
type APIError struct {
	Provider   string
	StatusCode int
	// Type is the API's error type when it gave one (e.g. "overloaded_error").
	Type       string
	Message    string
	RetryAfter time.Duration
}

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
	msg := e.Message
	if msg == "" {
		msg = "request failed"
	}
	return fmt.Sprintf("%s: HTTP %d %s%s", e.Provider, e.StatusCode, msg, hint)
}

// Retryable reports whether the request may succeed if sent again.
func (e *APIError) Retryable() bool {
	return e.StatusCode == 408 || e.StatusCode == 409 || e.StatusCode == 429 || e.StatusCode >= 500
}

// StreamError is a stream that broke after it started.
type StreamError struct {
	Provider string
	// AfterToolCall is set when at least one tool call had been emitted,
	// which makes the turn unsafe to retry.
	AfterToolCall bool
	Err           error
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("%s: stream broke: %v", e.Provider, e.Err)
}

func (e *StreamError) Unwrap() error { return e.Err }

// IsRetryable reports whether err is worth another attempt.
func IsRetryable(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Retryable()
	}
	var se *StreamError
	if errors.As(err, &se) {
		return !se.AfterToolCall
	}
	return false
}
