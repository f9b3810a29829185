package provider

import (
	"errors"
	"strings"
	"testing"
)

func TestAPIErrorTextIsOneLineWithHint(t *testing.T) {
	cases := []struct {
		err  *APIError
		want []string
	}{
		{&APIError{Provider: "anthropic", StatusCode: 401, Type: "authentication_error", Message: "invalid x-api-key"},
			[]string{"anthropic: HTTP 401", "authentication_error", "invalid x-api-key", "API key was rejected"}},
		{&APIError{Provider: "openai", StatusCode: 403, Message: "no access"}, []string{"HTTP 403", "may not use this model"}},
		{&APIError{Provider: "openai", StatusCode: 404, Message: "The model `x` does not exist"}, []string{"HTTP 404", "model name and the base URL"}},
		{&APIError{Provider: "openai", StatusCode: 500, Message: "  line one\n\tline two \n"}, []string{"HTTP 500 line one line two"}},
		{&APIError{Provider: "openai", StatusCode: 502}, []string{"HTTP 502 request failed"}},
	}
	for _, c := range cases {
		got := c.err.Error()
		if strings.ContainsAny(got, "\n\r\t") {
			t.Errorf("%q is not one line", got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q does not contain %q", got, w)
			}
		}
	}
}

func TestStreamErrorSaysWhyItWasNotRetried(t *testing.T) {
	cut := errors.New("unexpected EOF")
	before := &StreamError{Provider: "openai", Err: cut}
	after := &StreamError{Provider: "openai", AfterToolCall: true, Err: cut}
	if got := before.Error(); got != "openai: stream broke: unexpected EOF" {
		t.Errorf("before tool call: %q", got)
	}
	if got := after.Error(); !strings.Contains(got, "after a tool call") || !strings.Contains(got, "not retried") || !strings.Contains(got, "unexpected EOF") {
		t.Errorf("after tool call: %q", got)
	}
	if !errors.Is(after, cut) {
		t.Error("StreamError does not unwrap to its cause")
	}
}

func TestWrappedErrorsDoNotRepeatTheProvider(t *testing.T) {
	inner := &APIError{Provider: "anthropic", StatusCode: 529, Type: "overloaded_error", Message: "Overloaded"}
	got := (&StreamError{Provider: "anthropic", AfterToolCall: true, Err: inner}).Error()
	if strings.Count(got, "anthropic:") != 1 || !strings.Contains(got, "HTTP 529 overloaded_error: Overloaded") {
		t.Errorf("got %q, want the provider named once and the API error kept", got)
	}
	conn := (&ConnError{Provider: "openai", Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}).Error()
	if conn != "openai: cannot reach the API: dial tcp 127.0.0.1:1: connect: connection refused" {
		t.Errorf("ConnError text = %q", conn)
	}
}
