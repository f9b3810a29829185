package codex

import (
	"github.com/atomic-agent/atomic/internal/testkit"
	"os"
	"path/filepath"
	"testing"
)

func TestCodexGetsOpenAIsKeyAndItsConfigsEnvKeysButNotAnthropics(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"),
		[]byte("[model_providers.router]\nname = \"r\"\nenv_key = \"OPENROUTER_API_KEY\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	environ := []string{"PATH=/bin", "CODEX_HOME=" + home, "OPENAI_API_KEY=sk-openai", "ANTHROPIC_API_KEY=sk-ant",
		"ANTHROPIC_AUTH_TOKEN=tok", "OPENROUTER_API_KEY=or", "GEMINI_API_KEY=gem", "ATOMIC_NATS_TOKEN=nats"}
	tests := []struct {
		name        string
		env         []string
		want, avoid []string
	}{
		{"user's login", userEnv(environ),
			[]string{"OPENAI_API_KEY=sk-openai", "OPENROUTER_API_KEY=or", "PATH=/bin"},
			[]string{"ANTHROPIC_API_KEY=sk-ant", "ANTHROPIC_AUTH_TOKEN=tok", "GEMINI_API_KEY=gem", "ATOMIC_NATS_TOKEN=nats"}},
		{"Atomic's provider", generatedEnv(environ, "/tmp/h", "sk-atomic"),
			[]string{"CODEX_HOME=/tmp/h", keyEnv + "=sk-atomic", "PATH=/bin"},
			[]string{"OPENAI_API_KEY=sk-openai", "ANTHROPIC_API_KEY=sk-ant", "OPENROUTER_API_KEY=or", "ATOMIC_NATS_TOKEN=nats"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { testkit.CheckEnv(t, tt.env, tt.want, tt.avoid) })
	}
}
