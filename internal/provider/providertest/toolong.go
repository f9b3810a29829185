package providertest

import (
	"context"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/provider"
)

// tooLong: the server refuses a request over the model's window with the
// API's own error; the provider reports it as too long (what the native
// loop compacts on) and does not retry it, while another 400 is not.
func (s suite) tooLong(t *testing.T) {
	srv := s.server(t, `
context_window: 100
rules:
  - {match: {last_user_contains: "bad"}, respond: {error: {status: 400, type: invalid_request_error, message: "messages: text content blocks must be non-empty"}}}
  - respond: {text: "fits"}
`)
	p := s.provider(t, srv.URL(), Fast(5), nil)
	_, err := p.Stream(context.Background(), ask(strings.Repeat("long words ", 60)), nil)
	if !provider.IsContextTooLong(err) {
		t.Fatalf("err = %v, want a too-long refusal", err)
	}
	if n := len(settledLog(t, srv)); n != 1 {
		t.Errorf("server saw %d requests, want 1 (no retry)", n)
	}
	if _, err := p.Stream(context.Background(), ask("bad"), nil); err == nil || provider.IsContextTooLong(err) {
		t.Errorf("another 400: err = %v, want an error not classified too long", err)
	}
	if resp, err := p.Stream(context.Background(), ask("hi"), nil); err != nil || resp.Text != "fits" {
		t.Errorf("a short request: %v, %v; want it answered", resp, err)
	}
}
