// Package testkit gives tests a real model provider: the official Anthropic
// SDK client (through internal/provider/anthropic) talking to a scripted
// loopback server over HTTP. No interface stub stands in for the wire.
package testkit

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/anthropic"
)

// Model starts a loopback server scripted by scenario (YAML) and returns an
// Anthropic provider pointed at it, with millisecond retries. Both are
// closed when the test ends.
func Model(t testing.TB, scenario string) (provider.Provider, *loopback.Server) {
	t.Helper()
	srv := Loopback(t, scenario)
	tr := &http.Transport{}
	p, err := anthropic.New(anthropic.Config{
		APIKey: "test-key", BaseURL: srv.URL(), Model: "test-model",
		Retry:      provider.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxTotal: 5 * time.Second},
		HTTPClient: &http.Client{Transport: tr},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.CloseIdleConnections) // before the server closes
	return p, srv
}

// WaitFor polls cond until it holds or d passes.
func WaitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Loopback serves the YAML scenario on 127.0.0.1 for the test's length.
func Loopback(t testing.TB, scenario string) *loopback.Server {
	t.Helper()
	sc, err := loopback.ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	srv := loopback.New(sc)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// CheckEnv fails t for each entry of want that env lacks and each entry
// of avoid that it has (entries are whole NAME=value strings).
func CheckEnv(t testing.TB, env, want, avoid []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(env, w) {
			t.Errorf("env lacks %s: %q", w, env)
		}
	}
	for _, a := range avoid {
		if slices.Contains(env, a) {
			t.Errorf("env has %s", a)
		}
	}
}
