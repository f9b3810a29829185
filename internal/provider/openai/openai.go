// Package openai implements provider.Provider over the OpenAI Chat
// Completions API with the official Go SDK, streaming. The same wire serves
// Ollama, vLLM, llama.cpp, LM Studio and OpenRouter, so the package
// tolerates what those servers leave out (usage, finish_reason). Retries
// are Atomic's own (provider.RetryPolicy); the SDK's are switched off.
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/atomic-agent/atomic/internal/provider"
)

// name is the provider's name in errors and events.
const name = "openai"

// DefaultBaseURL is the OpenAI API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Provider. The config layer resolves OPENAI_API_KEY
// and OPENAI_BASE_URL; the values here win over those variables, which the
// SDK would otherwise read by itself.
type Config struct {
	// APIKey is required for the OpenAI API; other servers (Ollama, say)
	// may not need one.
	APIKey string
	// BaseURL is the API root including its version path
	// ("https://api.openai.com/v1", "http://localhost:11434/v1",
	// "https://openrouter.ai/api/v1"). A bare host root
	// ("http://localhost:11434") gets "/v1" added; a URL with any other
	// path is used as given. Empty means DefaultBaseURL.
	BaseURL string
	// Model is used when a Request names none.
	Model string
	// MaxTokens limits a turn's output; 0 sends no limit (the server's
	// default applies). It goes out as max_completion_tokens to the OpenAI
	// API and as max_tokens to other servers, which mostly know only that.
	MaxTokens int
	// Retry bounds the retries of a turn; zero fields take the defaults.
	Retry provider.RetryPolicy
	// HTTPClient, if set, carries the requests.
	HTTPClient *http.Client
	// NoPromptCache sends no prompt_cache_key, to measure what caching
	// saves.
	NoPromptCache bool
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

// New checks cfg and returns a Provider. A missing model, a bad base URL,
// or a missing key for the OpenAI API is an error.
func New(cfg Config) (*Provider, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("openai: no model given")
	}
	if cfg.MaxTokens < 0 {
		return nil, errors.New("openai: max tokens must not be negative")
	}
	base, err := NormaliseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(base)
	official := strings.EqualFold(u.Hostname(), "api.openai.com")
	if official && strings.TrimSpace(cfg.APIKey) == "" {
		return nil, errors.New("openai: no API key: set OPENAI_API_KEY or api_key in the config file")
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

// NormaliseBaseURL returns raw as the SDK wants it: DefaultBaseURL when
// empty, "/v1" added to a bare host root, anything else as given, without
// a trailing slash.
func NormaliseBaseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return DefaultBaseURL, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("openai: base URL %q is not an http(s) URL", raw)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	if u.Path == "" {
		u.Path = "/v1"
	}
	return u.String(), nil
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
