package chat

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

// clearEnv empties the OPENAI_* variables the SDK reads by itself, so the
// developer's environment cannot leak into a test.
func clearEnv(t *testing.T) {
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ADMIN_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_WEBHOOK_SECRET", "OPENAI_CUSTOM_HEADERS"} {
		t.Setenv(k, "")
	}
}

func harness() providertest.Harness {
	return providertest.Harness{
		API:   loopback.APIOpenAI,
		Model: "gpt-4o-mini",
		New: func(t *testing.T, cfg providertest.Config) provider.Provider {
			t.Helper()
			clearEnv(t)
			p, err := New(Config{APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, Model: cfg.Model, Retry: cfg.Retry, HTTPClient: cfg.HTTPClient})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			return p
		},
		// Per call: a header chunk, then three argument chunks. Six
		// events end inside the second call's arguments.
		CutAfterFirstToolCall: 6,
		StreamErrorType:       "server_error",
		ToolErrorFlag:         false,
	}
}

func TestProviderAgainstLoopbackServer(t *testing.T) {
	providertest.Run(t, harness())
}

func TestNewRequiresModelAndAKeyForOpenAIOnly(t *testing.T) {
	clearEnv(t)
	cases := []struct {
		name string
		cfg  Config
		want string // "" means no error
	}{
		{"no model", Config{APIKey: "k"}, "no model"},
		{"OpenAI without key", Config{Model: "gpt-4o"}, "no API key"},
		{"OpenAI by URL without key", Config{Model: "gpt-4o", BaseURL: "https://api.openai.com/v1"}, "no API key"},
		{"local server without key", Config{Model: "llama3", BaseURL: "http://localhost:11434"}, ""},
		{"negative max tokens", Config{Model: "m", APIKey: "k", MaxTokens: -5}, "max tokens"},
	}
	for _, c := range cases {
		_, err := New(c.cfg)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err = %v, want it to say %q", c.name, err, c.want)
		}
	}
}

func TestExplicitConfigWinsOverOpenAIEnvironment(t *testing.T) {
	sc, err := loopback.ParseScenario([]byte("api_key: cfg-key\nrules:\n  - respond: {text: fine}\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := loopback.New(sc)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	clearEnv(t)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "env-key")
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	p, err := New(Config{APIKey: "cfg-key", BaseURL: srv.URL(), Model: "gpt-4o", HTTPClient: &http.Client{Transport: tr}, Retry: providertest.Fast(1)})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Stream(context.Background(), provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "hi"}}}}}, nil)
	if err != nil || resp.Text != "fine" {
		t.Fatalf("got %v, %v; want the answer from the configured server with the configured key", resp, err)
	}
}

func TestMaxTokensFieldDependsOnServer(t *testing.T) {
	clearEnv(t)
	official, _ := New(Config{APIKey: "k", Model: "gpt-4o", MaxTokens: 500})
	local, _ := New(Config{BaseURL: "http://localhost:11434", Model: "llama3", MaxTokens: 500})
	unset, _ := New(Config{BaseURL: "http://localhost:11434", Model: "llama3"})
	po, _ := official.params(provider.Request{})
	pl, _ := local.params(provider.Request{})
	pu, _ := unset.params(provider.Request{MaxTokens: 7})
	if po.MaxCompletionTokens.Value != 500 || po.MaxTokens.Valid() {
		t.Errorf("OpenAI: max_completion_tokens %v, max_tokens set %v; want 500 and unset", po.MaxCompletionTokens.Value, po.MaxTokens.Valid())
	}
	if pl.MaxTokens.Value != 500 || pl.MaxCompletionTokens.Valid() {
		t.Errorf("local: max_tokens %v, max_completion_tokens set %v; want 500 and unset", pl.MaxTokens.Value, pl.MaxCompletionTokens.Valid())
	}
	if pu.MaxTokens.Value != 7 {
		t.Errorf("request's MaxTokens = %v, want 7", pu.MaxTokens.Value)
	}
	if p0, _ := unset.params(provider.Request{}); p0.MaxTokens.Valid() || p0.MaxCompletionTokens.Valid() {
		t.Error("no limit configured, but one was sent")
	}
	if !po.StreamOptions.IncludeUsage.Value {
		t.Error("stream_options.include_usage not requested")
	}
}
