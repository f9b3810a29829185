package chat

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
)

func cacheServer(t *testing.T) *loopback.Server {
	t.Helper()
	sc, err := loopback.ParseScenario([]byte("cache_min_tokens: 50\nrules: [{respond: {text: ok}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := loopback.New(sc)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

func cacheProvider(t *testing.T, srv *loopback.Server, off bool) *Provider {
	t.Helper()
	clearEnv(t)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	p, err := New(Config{APIKey: "test-key", BaseURL: srv.URL() + "/v1", Model: "gpt-4.1", HTTPClient: &http.Client{Transport: tr}, NoPromptCache: off})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRequestsCarryTheirPromptCacheKeyAndReadTheCachedPrefixAtItsPrice(t *testing.T) {
	srv := cacheServer(t)
	p := cacheProvider(t, srv, false)
	key := provider.PromptCacheKey("session-1", "lead")
	system := strings.Repeat("You are a careful agent. ", 40)
	history := []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "first"}}}}
	var usage []provider.Response
	for range 2 {
		resp, err := p.Stream(context.Background(), provider.Request{System: system, Messages: history, CacheKey: key}, nil)
		if err != nil {
			t.Fatal(err)
		}
		usage = append(usage, *resp)
		history = append(history, resp.Message(), provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Text: "next"}}})
	}
	log := srv.Log()
	for i, e := range log {
		if e.PromptCacheKey != key {
			t.Errorf("request %d: prompt_cache_key %q, want %q", i+1, e.PromptCacheKey, key)
		}
	}
	u := usage[1].Usage
	if u.CacheReadTokens == 0 || u.CacheReadTokens != int64(log[1].CacheReadTokens) || u.InputTokens+u.CacheReadTokens != int64(log[1].InputTokens) {
		t.Errorf("second usage %+v, log read %d of %d", u, log[1].CacheReadTokens, log[1].InputTokens)
	}
	// gpt-4.1: $2 input, $8 output, $0.50 cached input.
	want := (float64(u.InputTokens)*2 + float64(u.OutputTokens)*8 + float64(u.CacheReadTokens)*0.5) / 1e6
	if d := u.CostUSD - want; d > 1e-12 || d < -1e-12 {
		t.Errorf("cost %g, want %g", u.CostUSD, want)
	}
}

func TestNoPromptCacheAndAnEmptyKeySendNoPromptCacheKey(t *testing.T) {
	srv := cacheServer(t)
	msgs := []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "hi"}}}}
	for _, c := range []struct {
		off bool
		key string
	}{{true, "k"}, {false, ""}} {
		if _, err := cacheProvider(t, srv, c.off).Stream(context.Background(), provider.Request{Messages: msgs, CacheKey: c.key}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range srv.Log() {
		if e.PromptCacheKey != "" {
			t.Errorf("prompt_cache_key %q, want none", e.PromptCacheKey)
		}
	}
}
