package cli

import (
	"testing"

	"github.com/atomic-agent/atomic/internal/config"
)

func TestEachCLIInAMixedTreeTakesTheSettingsOfItsOwnAPIAndTheLeadsModel(t *testing.T) {
	lead := config.ProviderSettings{Provider: "anthropic", Model: "claude-x", BaseURL: "http://lead", APIKey: "lead-key"}
	// What the user gave the lead (--model, --base-url).
	flags := config.ProviderSettings{Provider: "anthropic", Model: "claude-x", BaseURL: "http://lead", APIKey: "lead-key"}
	env := map[string]string{"OPENAI_BASE_URL": "http://env-openai/v1", "OPENAI_API_KEY": "env-openai-key"}
	file := config.File{Provider: "openai", Model: "file-model", BaseURL: "http://file/v1", APIKey: "file-key"}
	cases := []struct {
		name    string
		backend string
		lead    config.ProviderSettings
		flags   config.ProviderSettings
		env     map[string]string
		file    config.File
		want    config.ProviderSettings
	}{
		{"claude-code takes the lead's Anthropic settings", "claude-code", lead, flags, env, file,
			config.ProviderSettings{Model: "claude-x", BaseURL: "http://lead", APIKey: "lead-key"}},
		{"codex takes the OpenAI environment's endpoint and the lead's model", "codex", lead, flags, env, file,
			config.ProviderSettings{Model: "claude-x", BaseURL: "http://env-openai/v1", APIKey: "env-openai-key"}},
		{"opencode without an OpenAI environment takes the lead's endpoint and model", "opencode", lead, flags, nil, file,
			config.ProviderSettings{Model: "claude-x", BaseURL: "http://lead", APIKey: "lead-key"}},
		{"opencode falls back to the config file naming openai when the lead names no endpoint", "opencode", lead,
			config.ProviderSettings{Provider: "anthropic"}, nil, file,
			config.ProviderSettings{Model: "file-model", BaseURL: "http://file/v1", APIKey: "file-key"}},
		{"copilot with nothing for its API uses its own login", "copilot", lead, config.ProviderSettings{Provider: "anthropic"}, nil, config.File{}, config.ProviderSettings{}},
		{"codex takes an OpenAI lead's flags over the environment", "codex",
			config.ProviderSettings{Provider: "openai", Model: "gpt-x", BaseURL: "http://lead/v1", APIKey: "k"},
			config.ProviderSettings{Provider: "openai", Model: "gpt-x", BaseURL: "http://lead/v1", APIKey: "k"}, env, file,
			config.ProviderSettings{Model: "gpt-x", BaseURL: "http://lead/v1", APIKey: "k"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &setup{ps: c.lead, file: c.file}
			got := cliSettings(apiOf(c.backend), c.flags, s, func(k string) string { return c.env[k] })
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
