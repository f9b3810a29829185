// Package openai is Atomic's OpenAI provider: the Chat Completions API of
// OpenAI and of the servers that speak it (Ollama, vLLM, llama.cpp, LM
// Studio, OpenRouter). The official Go SDK that speaks it runs in a
// program of its own, atomic-openai (package chat), which this package
// starts on the first request and talks to over a pipe (package hosted):
// linked into atomic, the SDK cost every Atomic process about 8 MB of
// memory, whichever provider it used, and the binary 20 MB. Retries are
// Atomic's, here; the program makes one attempt per request.
package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"

	"github.com/atomic-agent/atomic/internal/helperbin"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/hosted"
	"github.com/atomic-agent/atomic/internal/provider/openai/settings"
)

// name is the provider's name in errors and events.
const name = "openai"

// HelperName is the program that speaks the API with the official SDK
// (cmd/atomic-openai).
const HelperName = "atomic-openai"

// Config configures a Provider. The config layer resolves OPENAI_API_KEY
// and OPENAI_BASE_URL; the values here win over those variables, which the
// SDK would otherwise read by itself.
type Config struct {
	// APIKey is required for the OpenAI API; other servers (Ollama, say)
	// may not need one. It reaches the helper on its standard input, never
	// in its environment or arguments.
	APIKey string
	// BaseURL is the API root including its version path; a bare host
	// root gets "/v1" added (settings.NormaliseBaseURL). Empty means
	// the OpenAI API.
	BaseURL string
	// Model is used when a Request names none.
	Model string
	// MaxTokens limits a turn's output; 0 sends no limit.
	MaxTokens int
	// Retry bounds the retries of a turn; zero fields take the defaults.
	Retry provider.RetryPolicy
	// NoPromptCache sends no prompt_cache_key, to measure what caching
	// saves.
	NoPromptCache bool
	// Helper is the command that serves the API (its program and
	// arguments); empty: atomic-openai, found beside this program, else
	// on PATH.
	Helper []string
	// Env is the helper's environment; nil: none. The config layer gives
	// HelperEnv of this process's.
	Env []string
}

// settings are the endpoint's settings cfg holds.
func (cfg Config) settings() settings.Settings {
	return settings.Settings{APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, Model: cfg.Model, MaxTokens: cfg.MaxTokens, NoPromptCache: cfg.NoPromptCache}
}

// Provider streams turns through the helper. It is safe for concurrent
// use; Close ends the helper.
type Provider struct {
	model string
	retry provider.RetryPolicy
	host  *hosted.Client
}

var (
	_ provider.Provider    = (*Provider)(nil)
	_ provider.ModelLister = (*Provider)(nil)
)

// New checks cfg and finds the helper; the helper starts with the first
// request.
func New(cfg Config) (*Provider, error) {
	if _, _, err := cfg.settings().Check(); err != nil {
		return nil, err
	}
	argv := cfg.Helper
	if len(argv) == 0 {
		path, err := helperbin.Find(HelperName, os.Executable, exec.LookPath)
		if err != nil {
			return nil, fmt.Errorf("openai: the OpenAI provider runs in %w", err)
		}
		argv = []string{path}
	}
	conf, err := json.Marshal(cfg.settings())
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	return &Provider{model: cfg.Model, retry: cfg.Retry,
		host: hosted.NewClient(hosted.Command{Provider: name, Argv: argv, Env: cfg.Env, Settings: conf})}, nil
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
	return p.retry.Do(ctx, on, func(ctx context.Context) (*provider.Response, error) {
		return p.host.Attempt(ctx, req, on)
	})
}

// ListModels lists the models the service offers (GET /models).
func (p *Provider) ListModels(ctx context.Context) ([]string, error) {
	return p.host.ListModels(ctx)
}

// Close ends the helper, if it runs; later requests fail.
func (p *Provider) Close() error { return p.host.Close() }
