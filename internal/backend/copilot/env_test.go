package copilot

import (
	"github.com/atomic-agent/atomic/internal/testkit"
	"testing"

	"github.com/atomic-agent/atomic/internal/backend"
)

func TestCopilotGetsOnlyItsOwnCredentials(t *testing.T) {
	environ := []string{"PATH=/bin", "GH_TOKEN=gh", "COPILOT_GITHUB_TOKEN=cgh", "COPILOT_PROVIDER_API_KEY=byok",
		"OPENAI_API_KEY=sk-openai", "ANTHROPIC_API_KEY=sk-ant", "ATOMIC_NATS_TOKEN=nats"}
	tests := []struct {
		name        string
		env         []string
		want, avoid []string
	}{
		{"user's login", processEnv(environ, "m1", backend.Config{}),
			[]string{"GH_TOKEN=gh", "COPILOT_GITHUB_TOKEN=cgh", "COPILOT_PROVIDER_API_KEY=byok", markEnv + "=m1"},
			[]string{"OPENAI_API_KEY=sk-openai", "ANTHROPIC_API_KEY=sk-ant", "ATOMIC_NATS_TOKEN=nats"}},
		{"Atomic's endpoint", processEnv(environ, "m2", backend.Config{BaseURL: "http://127.0.0.1:9", APIKey: "sk-atomic"}),
			[]string{"COPILOT_PROVIDER_API_KEY=sk-atomic", "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:9"},
			[]string{"COPILOT_PROVIDER_API_KEY=byok", "COPILOT_GITHUB_TOKEN=cgh", "OPENAI_API_KEY=sk-openai", "ANTHROPIC_API_KEY=sk-ant", "ATOMIC_NATS_TOKEN=nats"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { testkit.CheckEnv(t, tt.env, tt.want, tt.avoid) })
	}
}
