package hosted

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"syscall"

	"github.com/atomic-agent/atomic/internal/provider"
)

// Error is an error as it crosses the pipe: the kinds the retry policy
// and the rest of Atomic tell apart (provider.APIError, StreamError,
// ConnError with what its methods read, a context's end), each rebuilt on
// the other side so that its text, IsRetryable, Reason, Refused, Local and
// IsContextTooLong answer as they would have in process.
type Error struct {
	Kind string `json:"kind"` // "api", "stream", "conn", "canceled", "deadline" or "other"
	Text string `json:"text,omitempty"`
	// API is an APIError's fields.
	API *provider.APIError `json:"api,omitempty"`
	// Provider names the provider of a StreamError or ConnError.
	Provider string `json:"provider,omitempty"`
	// AfterToolCall and Cause are a StreamError's.
	AfterToolCall bool   `json:"after_tool_call,omitempty"`
	Cause         *Error `json:"cause,omitempty"`
	// A ConnError's: the request's operation and URL, and what its cause
	// says (Text): the errno, a timeout, a name not found, the address.
	Op       string `json:"op,omitempty"`
	URL      string `json:"url,omitempty"`
	Errno    int    `json:"errno,omitempty"`
	Timeout  bool   `json:"timeout,omitempty"`
	DNS      bool   `json:"dns,omitempty"`
	NotFound bool   `json:"not_found,omitempty"`
	Addr     string `json:"addr,omitempty"`
}

// Encode is err as it is sent.
func Encode(err error) *Error {
	if err == nil {
		return nil
	}
	var se *provider.StreamError
	var ae *provider.APIError
	var ce *provider.ConnError
	switch {
	case errors.As(err, &se):
		return &Error{Kind: "stream", Provider: se.Provider, AfterToolCall: se.AfterToolCall, Cause: Encode(se.Err)}
	case errors.As(err, &ae):
		a := *ae
		return &Error{Kind: "api", API: &a}
	case errors.As(err, &ce):
		e := &Error{Kind: "conn", Provider: ce.Provider}
		cause := ce.Err
		var ue *url.Error
		if errors.As(ce.Err, &ue) {
			e.Op, e.URL, cause = ue.Op, ue.URL, ue.Err
		}
		if cause != nil {
			e.Text = cause.Error()
		}
		var errno syscall.Errno
		if errors.As(err, &errno) {
			e.Errno = int(errno)
		}
		e.Timeout = errors.Is(err, os.ErrDeadlineExceeded)
		var de *net.DNSError
		if errors.As(err, &de) {
			e.DNS, e.NotFound = true, de.IsNotFound
		}
		var oe *net.OpError
		if errors.As(err, &oe) {
			if a, ok := oe.Addr.(*net.TCPAddr); ok && a.IP != nil {
				e.Addr = a.IP.String()
			}
		}
		return e
	case errors.Is(err, context.Canceled):
		return &Error{Kind: "canceled", Text: err.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: "deadline", Text: err.Error()}
	}
	return &Error{Kind: "other", Text: err.Error()}
}

// Decode is the error e was made from, rebuilt.
func (e *Error) Decode() error {
	switch e.Kind {
	case "api":
		if e.API != nil {
			a := *e.API
			return &a
		}
	case "stream":
		var cause error
		if e.Cause != nil {
			cause = e.Cause.Decode()
		}
		return &provider.StreamError{Provider: e.Provider, AfterToolCall: e.AfterToolCall, Err: cause}
	case "conn":
		nc := &netCause{text: e.Text, errno: syscall.Errno(e.Errno), timeout: e.Timeout, dns: e.DNS, notFound: e.NotFound}
		if e.Addr != "" {
			nc.addr = net.ParseIP(e.Addr)
		}
		var cause error = nc
		if e.URL != "" {
			cause = &url.Error{Op: e.Op, URL: e.URL, Err: nc}
		}
		return &provider.ConnError{Provider: e.Provider, Err: cause}
	case "canceled":
		return context.Canceled
	case "deadline":
		return context.DeadlineExceeded
	}
	return errors.New(e.Text)
}

// netCause stands for a connection failure's cause: its text as it was,
// and what errors.Is and errors.As asked of the original (its errno, a
// deadline, a DNS error, the address dialled).
type netCause struct {
	text     string
	errno    syscall.Errno
	timeout  bool
	dns      bool
	notFound bool
	addr     net.IP
}

func (n *netCause) Error() string { return n.text }

// Timeout is what net.Error asks.
func (n *netCause) Timeout() bool { return n.timeout }

func (n *netCause) Is(target error) bool {
	if errno, ok := target.(syscall.Errno); ok {
		return n.errno != 0 && errno == n.errno
	}
	return n.timeout && target == os.ErrDeadlineExceeded
}

func (n *netCause) As(target any) bool {
	switch t := target.(type) {
	case *syscall.Errno:
		if n.errno != 0 {
			*t = n.errno
			return true
		}
	case **net.DNSError:
		if n.dns {
			*t = &net.DNSError{Err: n.text, IsNotFound: n.notFound, IsTimeout: n.timeout}
			return true
		}
	case **net.OpError:
		if n.addr != nil {
			*t = &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: n.addr}, Err: errors.New(n.text)}
			return true
		}
	}
	return false
}
