// Package chat implements provider.Provider over the OpenAI Chat
// Completions API with the official Go SDK, streaming. The same wire serves
// Ollama, vLLM, llama.cpp, LM Studio and OpenRouter, so the package
// tolerates what those servers leave out (usage, finish_reason). Retries
// are Atomic's own (provider.RetryPolicy); the SDK's are switched off.
//
// Only the atomic-openai program links this package (and so the SDK, about
// 20 MB of binary and 8 MB of every process's memory): Atomic reaches it
// through package openai, which runs that program.
package chat

import (
	"context"
	"net/http"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/openai/settings"
)

// name is the provider's name in errors and events.
const name = "openai"

// Config configures a Provider: the endpoint's settings (see
// settings.Settings for each), the retries (Stream's; Attempt makes one)
// and the HTTP client.
type Config struct {
	APIKey        string
	BaseURL       string
	Model         string
	MaxTokens     int
	NoPromptCache bool
	// Retry bounds Stream's retries of a turn; zero fields take the
	// defaults.
	Retry provider.RetryPolicy
	// HTTPClient, if set, carries the requests.
	HTTPClient *http.Client
}

// Provider streams turns from a Chat Completions API. It is safe for
// concurrent use.
type Provider struct {
	client    sdk.Client
	model     string
	maxTokens int
	official  bool // the server is api.openai.com
	retry     provider.RetryPolicy
	tools     toolCache
	cache     bool // send the request's prompt_cache_key
}

var _ provider.Provider = (*Provider)(nil)

// New checks cfg (settings.Check) and returns a Provider.
func New(cfg Config) (*Provider, error) {
	base, official, err := settings.Settings{APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, Model: cfg.Model,
		MaxTokens: cfg.MaxTokens, NoPromptCache: cfg.NoPromptCache}.Check()
	if err != nil {
		return nil, err
	}
	// Options given here come after the SDK's environment defaults, so
	// they win over OPENAI_API_KEY and OPENAI_BASE_URL.
	opts := []option.RequestOption{
		option.WithAPIKey(cfg.APIKey),
		option.WithBaseURL(base),
		option.WithMaxRetries(0),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Provider{
		client:    sdk.NewClient(opts...),
		model:     cfg.Model,
		maxTokens: cfg.MaxTokens,
		official:  official,
		retry:     cfg.Retry,
		cache:     !cfg.NoPromptCache,
	}, nil
}

// Name is "openai".
func (p *Provider) Name() string { return name }

// Model is the model used when a request names none.
func (p *Provider) Model() string { return p.model }

// Stream sends req and streams the answer to on: a ChunkText per text
// delta, a ChunkToolCall per tool call once its arguments are complete, and
// a ChunkRetry before each retried attempt. Failed attempts are retried per
// the Config's RetryPolicy; a stream that breaks after a tool call is not.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Chunk)) (*provider.Response, error) {
	if on == nil {
		on = func(provider.Chunk) {}
	}
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	return p.retry.Do(ctx, on, func(ctx context.Context) (*provider.Response, error) {
		return p.attempt(ctx, params, on)
	})
}

// Attempt makes one attempt at req, without retrying: what atomic-openai
// does for each request of Atomic, whose retry policy runs in Atomic.
func (p *Provider) Attempt(ctx context.Context, req provider.Request, on func(provider.Chunk)) (*provider.Response, error) {
	if on == nil {
		on = func(provider.Chunk) {}
	}
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	return p.attempt(ctx, params, on)
}
