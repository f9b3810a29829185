// Package settings is what both sides of Atomic's OpenAI provider read:
// the settings of a Chat Completions endpoint, their check and the base
// URL's normal form. Package openai (in atomic) and package chat (in the
// atomic-openai program, with the SDK) share it; it links nothing else.
package settings

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// DefaultBaseURL is the OpenAI API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Settings are an endpoint's: what atomic hands atomic-openai, as JSON on
// its standard input (the key never goes into its environment or
// arguments).
type Settings struct {
	// APIKey is required for the OpenAI API; other servers (Ollama, say)
	// may not need one.
	APIKey string `json:"api_key,omitempty"`
	// BaseURL is the API root including its version path
	// ("https://api.openai.com/v1", "http://localhost:11434/v1",
	// "https://openrouter.ai/api/v1"). A bare host root
	// ("http://localhost:11434") gets "/v1" added; a URL with any other
	// path is used as given. Empty means DefaultBaseURL.
	BaseURL string `json:"base_url,omitempty"`
	// Model is used when a request names none.
	Model string `json:"model"`
	// MaxTokens limits a turn's output; 0 sends no limit (the server's
	// default applies). It goes out as max_completion_tokens to the OpenAI
	// API and as max_tokens to other servers, which mostly know only that.
	MaxTokens int `json:"max_tokens,omitempty"`
	// NoPromptCache sends no prompt_cache_key, to measure what caching
	// saves.
	NoPromptCache bool `json:"no_prompt_cache,omitempty"`
}

// Check reports what is wrong with s (no model, a negative limit, a base
// URL that is not http(s), no key for the OpenAI API) and returns its base
// URL normalised and whether it is the OpenAI API itself.
func (s Settings) Check() (base string, official bool, err error) {
	if strings.TrimSpace(s.Model) == "" {
		return "", false, errors.New("openai: no model given")
	}
	if s.MaxTokens < 0 {
		return "", false, errors.New("openai: max tokens must not be negative")
	}
	base, err = NormaliseBaseURL(s.BaseURL)
	if err != nil {
		return "", false, err
	}
	u, _ := url.Parse(base)
	official = strings.EqualFold(u.Hostname(), "api.openai.com")
	if official && strings.TrimSpace(s.APIKey) == "" {
		return "", false, errors.New("openai: no API key: set OPENAI_API_KEY or api_key in the config file")
	}
	return base, official, nil
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
