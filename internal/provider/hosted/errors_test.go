package hosted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/provider"
)

// refused is a real connection-refused error from net/http, as the SDK
// sees one: a closed local port.
func refused(t *testing.T) error {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	_, err = (&http.Client{Transport: tr}).Get("http://" + addr + "/v1/chat/completions")
	if err == nil {
		t.Fatal("a closed port answered")
	}
	return err
}

// Every kind of error the retry policy and the rest of Atomic read comes
// out of the pipe answering as it went in: its text, whether it is
// retried, the retry notice's reason, refused, local, too long, and the
// context's ends.
func TestErrorsCrossThePipeAnsweringAsTheyDidInProcess(t *testing.T) {
	api := &provider.APIError{Provider: "openai", StatusCode: 429, Type: "rate_limit_exceeded", Code: "rate_limit_exceeded", Message: "slow down", RetryAfter: 1500 * time.Millisecond}
	tooLong := &provider.APIError{Provider: "openai", StatusCode: 400, Code: "context_length_exceeded", Message: "maximum context length is 128000 tokens"}
	remote := &provider.ConnError{Provider: "openai", Err: &url.Error{Op: "Post", URL: "https://api.example.com/v1/chat/completions",
		Err: &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.ParseIP("203.0.113.9"), Port: 443}, Err: os.NewSyscallError("connect", syscall.ECONNRESET)}}}
	dns := &provider.ConnError{Provider: "openai", Err: &url.Error{Op: "Post", URL: "https://nowhere.invalid/v1/chat/completions",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}}}}
	timeout := &provider.ConnError{Provider: "openai", Err: &url.Error{Op: "Post", URL: "http://10.0.0.7:8000/v1/chat/completions",
		Err: &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.ParseIP("10.0.0.7"), Port: 8000}, Err: fmt.Errorf("i/o timeout: %w", os.ErrDeadlineExceeded)}}}
	cases := map[string]error{
		"api":                     api,
		"too long":                tooLong,
		"stream cut":              &provider.StreamError{Provider: "openai", Err: errors.New("unexpected EOF")},
		"stream error after tool": &provider.StreamError{Provider: "openai", AfterToolCall: true, Err: api},
		"refused":                 &provider.ConnError{Provider: "openai", Err: refused(t)},
		"reset, remote":           remote,
		"host not found":          dns,
		"timed out":               timeout,
		"canceled":                context.Canceled,
		"deadline":                context.DeadlineExceeded,
		"other":                   errors.New("openai: tool \"x\": input schema is not JSON"),
	}
	for name, in := range cases {
		b, err := json.Marshal(Encode(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var e Error
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := e.Decode()
		if out.Error() != in.Error() {
			t.Errorf("%s: text %q, want %q", name, out.Error(), in.Error())
		}
		if provider.IsRetryable(out) != provider.IsRetryable(in) || provider.Reason(out) != provider.Reason(in) ||
			provider.IsContextTooLong(out) != provider.IsContextTooLong(in) {
			t.Errorf("%s: retryable %v reason %q too long %v; want %v %q %v", name, provider.IsRetryable(out), provider.Reason(out),
				provider.IsContextTooLong(out), provider.IsRetryable(in), provider.Reason(in), provider.IsContextTooLong(in))
		}
		var ci, co *provider.ConnError
		if errors.As(in, &ci) != errors.As(out, &co) || ci != nil && (ci.Refused() != co.Refused() || ci.Local() != co.Local() || ci.URL() != co.URL()) {
			t.Errorf("%s: connection error %+v came out as %+v", name, ci, co)
		}
		var ai, ao *provider.APIError
		if errors.As(in, &ai) && (!errors.As(out, &ao) || *ai != *ao) {
			t.Errorf("%s: API error %+v came out as %+v", name, ai, ao)
		}
		for _, target := range []error{context.Canceled, context.DeadlineExceeded, os.ErrDeadlineExceeded} {
			if errors.Is(in, target) != errors.Is(out, target) {
				t.Errorf("%s: errors.Is(%v) changed", name, target)
			}
		}
	}
}
