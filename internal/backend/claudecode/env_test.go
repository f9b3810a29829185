package claudecode

import (
	"slices"
	"testing"

	"github.com/atomic-agent/atomic/internal/backend"
)

var userEnviron = []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk-ant-user", "ANTHROPIC_AUTH_TOKEN=tok", "CLAUDE_CODE_OAUTH_TOKEN=oauth",
	"OPENAI_API_KEY=sk-openai", "OPENROUTER_API_KEY=or", "ATOMIC_NATS_TOKEN=nats", "GITHUB_TOKEN=gh"}

func TestClaudeCodeGetsAnthropicsCredentialsButNoOtherProvidersKeys(t *testing.T) {
	tests := []struct {
		name  string
		cfg   backend.Config
		want  []string
		avoid []string
	}{
		{"user's login", backend.Config{},
			[]string{"ANTHROPIC_API_KEY=sk-ant-user", "ANTHROPIC_AUTH_TOKEN=tok", "CLAUDE_CODE_OAUTH_TOKEN=oauth", "GITHUB_TOKEN=gh", "PATH=/bin"},
			[]string{"OPENAI_API_KEY=sk-openai", "OPENROUTER_API_KEY=or", "ATOMIC_NATS_TOKEN=nats"}},
		{"Atomic's endpoint and key", backend.Config{BaseURL: "http://127.0.0.1:9", APIKey: "sk-atomic"},
			[]string{"ANTHROPIC_BASE_URL=http://127.0.0.1:9", "ANTHROPIC_API_KEY=sk-atomic"},
			[]string{"OPENAI_API_KEY=sk-openai", "ATOMIC_NATS_TOKEN=nats"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := (&Session{cfg: tt.cfg}).envFrom(userEnviron, "")
			for _, w := range tt.want {
				if !slices.Contains(env, w) {
					t.Errorf("env lacks %s: %q", w, env)
				}
			}
			for _, a := range tt.avoid {
				if slices.Contains(env, a) {
					t.Errorf("env has %s", a)
				}
			}
		})
	}
}
