package opencode

import (
	"github.com/atomic-agent/atomic/internal/testkit"
	"testing"
)

func TestOpenCodeGetsNoUserKeyOnAtomicsEndpointAndNoAtomicSecretOnItsOwn(t *testing.T) {
	environ := []string{"PATH=/bin", "OPENAI_API_KEY=sk-openai", "ANTHROPIC_API_KEY=sk-ant", "ATOMIC_NATS_TOKEN=nats"}
	tests := []struct {
		name        string
		env         []string
		want, avoid []string
	}{
		{"Atomic's endpoint", processEnv(environ, "/c.json", true, "sk-atomic"),
			[]string{keyEnv + "=sk-atomic", "OPENCODE_CONFIG=/c.json", "PATH=/bin"},
			[]string{"OPENAI_API_KEY=sk-openai", "ANTHROPIC_API_KEY=sk-ant", "ATOMIC_NATS_TOKEN=nats"}},
		{"its own config", processEnv(environ, "/c.json", false, ""),
			[]string{"OPENAI_API_KEY=sk-openai", "ANTHROPIC_API_KEY=sk-ant", "OPENCODE_CONFIG=/c.json"},
			[]string{"ATOMIC_NATS_TOKEN=nats", keyEnv + "=none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { testkit.CheckEnv(t, tt.env, tt.want, tt.avoid) })
	}
}
