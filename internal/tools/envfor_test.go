package tools

import (
	"strings"
	"testing"
)

func TestEnvForDropsEverySecretButTheOnesTheChildNeeds(t *testing.T) {
	in := []string{"PATH=/bin", "ANTHROPIC_API_KEY=a", "OPENAI_API_KEY=o", "openai_api_key=o2", "ATOMIC_NATS_TOKEN=n",
		"GITHUB_TOKEN=g", "ANTHROPIC_BASE_URL=http://b"}
	tests := []struct {
		name string
		keep []string
		want string
	}{
		{"keep nothing", nil, "PATH=/bin GITHUB_TOKEN=g ANTHROPIC_BASE_URL=http://b"},
		{"keep Anthropic's", []string{"ANTHROPIC_API_KEY"}, "PATH=/bin ANTHROPIC_API_KEY=a GITHUB_TOKEN=g ANTHROPIC_BASE_URL=http://b"},
		{"keep OpenAI's, any case", []string{"openai_api_key"}, "PATH=/bin OPENAI_API_KEY=o openai_api_key=o2 GITHUB_TOKEN=g ANTHROPIC_BASE_URL=http://b"},
		{"the provider keys never keep Atomic's own", ProviderKeys(), "PATH=/bin ANTHROPIC_API_KEY=a OPENAI_API_KEY=o openai_api_key=o2 GITHUB_TOKEN=g ANTHROPIC_BASE_URL=http://b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(EnvFor(in, tt.keep...), " "); got != tt.want {
				t.Errorf("EnvFor(keep %v) = %q, want %q", tt.keep, got, tt.want)
			}
		})
	}
}
