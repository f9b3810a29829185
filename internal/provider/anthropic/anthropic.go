// Package anthropic implements provider.Provider over the Anthropic Messages
// API with the official Go SDK, streaming. Retries are Atomic's own
// (provider.RetryPolicy); the SDK's are switched off.
package anthropic

import (
	"context"
	"errors"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/atomic-agent/atomic/internal/provider"
)

// name is the provider's name in errors and events.
const name = "anthropic"

// DefaultMaxTokens is the output limit of a turn when neither the Config nor
// the Request sets one (the Messages API requires a limit).
const DefaultMaxTokens = 8192

// thinkingRoom is the answer's room beside the thinking budget when no
// limit is configured.
const thinkingRoom = 8000

// ThinkingBudget is the budget_tokens of an effort level; 0: no thinking.
// With thinking on, max_tokens is the budget plus the answer's room (the
// configured limit, else thinkingRoom), so max's 24,000 + 8,000 stays
// within 32,000, the smallest output limit of the models that think (Opus
// 4 and 4.1). A switch, not a package-level map: a map is built at init in
// every process.
func ThinkingBudget(e provider.Effort) int {
	switch e {
	case provider.EffortLow:
		return 2048
	case provider.EffortMedium:
		return 8192
	case provider.EffortHigh:
		return 16384
	case provider.EffortMax:
		return 24000
	}
	return 0
}

// Config configures a Provider. Environment variables are not read here:
// the config layer resolves ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL.
type Config struct {
	APIKey string
	// BaseURL is the API's host root ("https://api.anthropic.com"); a
	// trailing "/v1" is accepted and dropped, since the SDK adds
	// "/v1/messages" itself. Empty means the Anthropic API.
	BaseURL string
	// Model is used when a Request names none.
	Model string
	// MaxTokens limits a turn's output; 0 means DefaultMaxTokens.
	MaxTokens int
	// Retry bounds the retries of a turn; zero fields take the defaults.
	Retry provider.RetryPolicy
	// HTTPClient, if set, carries the requests (tests close its idle
	// connections; proxies and timeouts are configured on it).
	HTTPClient *http.Client
	// NoPromptCache sends no cache_control breakpoints (see cache.go), to
	// measure what caching saves.
	NoPromptCache bool
}

// Provider streams turns from the Anthropic Messages API. It is safe for
// concurrent use.
type Provider struct {
	client    sdk.Client
	model     string
	maxTokens int
	// thinkingRoom is the answer's room beside a thinking budget.
	thinkingRoom int
	retry        provider.RetryPolicy
	tools        toolCache
	cache        bool // mark cache breakpoints
}

var _ provider.Provider = (*Provider)(nil)

// New checks cfg and returns a Provider. A missing key or model is an error.
func New(cfg Config) (*Provider, error) {
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, errors.New("anthropic: no API key: set ANTHROPIC_API_KEY or api_key in the config file")
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("anthropic: no model given")
	}
	if cfg.MaxTokens < 0 {
		return nil, errors.New("anthropic: max tokens must not be negative")
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0),
	}
	if cfg.BaseURL != "" {
		base, err := NormaliseBaseURL(cfg.BaseURL)
		if err != nil {
			return nil, err
		}
		opts = append(opts, option.WithBaseURL(base))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	maxTokens, room := cfg.MaxTokens, cfg.MaxTokens
	if maxTokens == 0 {
		maxTokens, room = DefaultMaxTokens, thinkingRoom
	}
	return &Provider{
		client:       sdk.NewClient(opts...),
		model:        cfg.Model,
		maxTokens:    maxTokens,
		thinkingRoom: room,
		retry:        cfg.Retry,
		cache:        !cfg.NoPromptCache,
	}, nil
}

// Name is "anthropic".
func (p *Provider) Name() string { return name }

// Model is the model used when a request names none.
func (p *Provider) Model() string { return p.model }

// Stream sends req and streams the answer to on: a ChunkText per text
// delta, a ChunkToolCall per tool_use block once its input is complete, and
// a ChunkRetry before each retried attempt. Failed attempts are retried per
// the Config's RetryPolicy; a stream that breaks after a tool call is not.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Chunk)) (*provider.Response, error) {
	if on == nil {
		on = func(provider.Chunk) {}
	}
	r, err := p.request(req)
	if err != nil {
		return nil, err
	}
	return p.retry.Do(ctx, on, func(ctx context.Context) (*provider.Response, error) {
		return p.attempt(ctx, r, on)
	})
}

// request translates and encodes req. Apart from Stream, and the request
// on the heap, because the SDK's parameters are large: copies of them in
// Stream's frame were 2.5 KB of the stack every agent waits on.
func (p *Provider) request(req provider.Request) (*request, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	return encode(params), nil
}
