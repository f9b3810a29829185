package anthropic

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/providertest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func harness() providertest.Harness {
	return providertest.Harness{
		API:   loopback.APIAnthropic,
		Model: "claude-sonnet-4-5-20250929",
		New: func(t *testing.T, cfg providertest.Config) provider.Provider {
			t.Helper()
			p, err := New(Config{APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, Model: cfg.Model, Retry: cfg.Retry, HTTPClient: cfg.HTTPClient})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			return p
		},
		// message_start, ping, then per call: start, four input deltas,
		// stop. Ten events end inside the second call.
		CutAfterFirstToolCall: 10,
		StreamErrorType:       "overloaded_error",
		ToolErrorFlag:         true,
	}
}

func TestProviderAgainstLoopbackServer(t *testing.T) {
	providertest.Run(t, harness())
}

func TestNewRejectsMissingKeyModelAndBadURL(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no key", Config{Model: "claude-sonnet-4-5"}, "no API key"},
		{"blank key", Config{APIKey: "  ", Model: "claude-sonnet-4-5"}, "no API key"},
		{"no model", Config{APIKey: "k"}, "no model"},
		{"negative max tokens", Config{APIKey: "k", Model: "m", MaxTokens: -1}, "max tokens"},
		{"bad base URL", Config{APIKey: "k", Model: "m", BaseURL: "localhost:8080"}, "not an http(s) URL"},
	}
	for _, c := range cases {
		_, err := New(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", c.name, err, c.want)
		}
	}
}

func TestBaseURLWithV1AndEnvironmentAreIgnored(t *testing.T) {
	// The config layer resolves the environment; the provider must not.
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "env-token")
	sc, err := loopback.ParseScenario([]byte("api_key: cfg-key\nrules:\n  - respond: {text: fine}\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := loopback.New(sc)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	for _, base := range []string{srv.URL(), srv.URL() + "/", srv.URL() + "/v1", srv.URL() + "/v1/"} {
		p, err := New(Config{APIKey: "cfg-key", BaseURL: base, Model: "claude-haiku-4-5", HTTPClient: &http.Client{Transport: tr}, Retry: providertest.Fast(1)})
		if err != nil {
			t.Fatalf("New(%q): %v", base, err)
		}
		resp, err := p.Stream(context.Background(), provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "hi"}}}}}, nil)
		if err != nil || resp.Text != "fine" {
			t.Errorf("base URL %q: got %v, %v; want the answer", base, resp, err)
		}
	}
}

func TestRequestCarriesMaxTokensSystemAndSchema(t *testing.T) {
	p, err := New(Config{APIKey: "k", Model: "claude-haiku-4-5", MaxTokens: 1000})
	if err != nil {
		t.Fatal(err)
	}
	params, err := p.params(provider.Request{
		System:   "sys",
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "hi"}, {Text: ""}}}, {Role: provider.RoleAssistant}},
		Tools:    []provider.ToolSpec{{Name: "read", InputSchema: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if params.MaxTokens != 1000 || string(params.Model) != "claude-haiku-4-5" || params.System[0].Text != "sys" {
		t.Errorf("params = max %d, model %q, system %+v", params.MaxTokens, params.Model, params.System)
	}
	if len(params.Messages) != 1 || len(params.Messages[0].Content) != 1 {
		t.Errorf("empty text and empty messages should be dropped, got %d messages", len(params.Messages))
	}
	schema := params.Tools[0].OfTool.InputSchema
	if len(schema.Required) != 1 || schema.Required[0] != "path" || schema.ExtraFields["additionalProperties"] != false {
		t.Errorf("schema = %+v, want required and additionalProperties carried over", schema)
	}
	if _, err := p.params(provider.Request{Tools: []provider.ToolSpec{{Name: "bad", InputSchema: []byte(`[1]`)}}}); err == nil || !strings.Contains(err.Error(), `tool "bad"`) {
		t.Errorf("a non-object schema should be an error naming the tool, got %v", err)
	}
	if _, err := p.params(provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{ToolCall: &provider.ToolCall{Name: "x"}}}}}}); err == nil {
		t.Error("a tool call in a user message should be an error")
	}
	def, _ := New(Config{APIKey: "k", Model: "m"})
	if params, _ := def.params(provider.Request{}); params.MaxTokens != DefaultMaxTokens {
		t.Errorf("default max tokens = %d, want %d", params.MaxTokens, DefaultMaxTokens)
	}
}
