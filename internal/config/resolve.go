package config

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/anthropic"
	"github.com/atomic-agent/atomic/internal/provider/demo"
	"github.com/atomic-agent/atomic/internal/provider/openai"
)

// Default models per provider.
const (
	DefaultAnthropicModel = "claude-sonnet-4-5"
	DefaultOpenAIModel    = "gpt-4.1"
)

// Flags are the provider settings given on the command line.
type Flags struct {
	Provider string
	Model    string
	BaseURL  string
	Demo     bool
}

// ProviderSettings is the resolved choice of provider.
type ProviderSettings struct {
	Provider string // anthropic, openai, demo
	Model    string
	BaseURL  string
	APIKey   string
	Retry    provider.RetryPolicy
	// NoPromptCache turns prompt caching off (ATOMIC_NO_PROMPT_CACHE=1),
	// to measure what it saves.
	NoPromptCache bool
	// Source says where the provider choice came from, for messages.
	Source string
}

// ErrNoProvider means nothing names a provider: the TUI shows its
// first-run screen, atomic run asks for --demo or a key.
var ErrNoProvider = errors.New("no model provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY (or --provider with a key in the config file), or use --demo for the built-in demo model")

// Resolve picks provider, model, base URL and key: flags, then the usual
// environment variables, then the config file, then defaults.
func Resolve(fl Flags, file File, getenv func(string) string) (ProviderSettings, error) {
	ps := ProviderSettings{Retry: file.Retry.Policy(), NoPromptCache: getenv("ATOMIC_NO_PROMPT_CACHE") == "1"}
	if fl.Demo {
		ps.Provider, ps.Model, ps.Source = "demo", demo.Model, "--demo"
		return ps, nil
	}
	switch {
	case fl.Provider != "":
		ps.Provider, ps.Source = fl.Provider, "--provider"
	case file.Provider != "":
		ps.Provider, ps.Source = file.Provider, "config file"
	case getenv("ANTHROPIC_API_KEY") != "":
		ps.Provider, ps.Source = "anthropic", "ANTHROPIC_API_KEY"
	case getenv("OPENAI_API_KEY") != "":
		ps.Provider, ps.Source = "openai", "OPENAI_API_KEY"
	default:
		return ps, ErrNoProvider
	}
	ps.Provider = strings.ToLower(ps.Provider)
	var envKey, envURL, defModel string
	switch ps.Provider {
	case "anthropic":
		envKey, envURL, defModel = "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", DefaultAnthropicModel
	case "openai":
		envKey, envURL, defModel = "OPENAI_API_KEY", "OPENAI_BASE_URL", DefaultOpenAIModel
	case "demo":
		ps.Model = demo.Model
		return ps, nil
	default:
		return ps, fmt.Errorf("unknown provider %q (from %s): want anthropic, openai or demo", ps.Provider, ps.Source)
	}
	ps.Model = first(fl.Model, file.Model, defModel)
	ps.BaseURL = first(fl.BaseURL, getenv(envURL), file.BaseURL)
	ps.APIKey = first(getenv(envKey), file.APIKey)
	if ps.APIKey == "" {
		if ps.Provider == "openai" && ps.BaseURL != "" {
			// Local OpenAI-compatible servers (Ollama, llama.cpp) take any key.
			ps.APIKey = "none"
		} else {
			return ps, fmt.Errorf("provider %s needs an API key: set %s or api_key in the config file", ps.Provider, envKey)
		}
	}
	return ps, nil
}

// NewProvider builds the provider ps names.
func NewProvider(ps ProviderSettings) (provider.Provider, error) {
	switch ps.Provider {
	case "demo":
		return demo.New(), nil
	case "anthropic":
		return anthropic.New(anthropic.Config{APIKey: ps.APIKey, BaseURL: ps.BaseURL, Model: ps.Model, Retry: ps.Retry,
			NoPromptCache: ps.NoPromptCache})
	case "openai":
		// The helper that speaks the API gets only the environment it reads;
		// the key goes to it on its input.
		return openai.New(openai.Config{APIKey: ps.APIKey, BaseURL: ps.BaseURL, Model: ps.Model, Retry: ps.Retry,
			NoPromptCache: ps.NoPromptCache, Env: openai.HelperEnv(os.Environ())})
	}
	return nil, fmt.Errorf("unknown provider %q", ps.Provider)
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
