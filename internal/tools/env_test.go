//go:build unix

package tools

import (
	"strings"
	"testing"
)

// Commands the model runs never see the model providers' keys or Atomic's
// own secrets; the rest of the environment passes through.
func TestBashCommandsDoNotSeeProviderKeys(t *testing.T) {
	secrets := map[string]string{
		"ANTHROPIC_API_KEY":        "sk-ant-secret-1",
		"ANTHROPIC_AUTH_TOKEN":     "secret-2",
		"OPENAI_API_KEY":           "sk-secret-3",
		"COPILOT_PROVIDER_API_KEY": "secret-4",
		"OPENROUTER_API_KEY":       "secret-5",
		"ATOMIC_API_KEY":           "secret-6",
		"ATOMIC_NATS_TOKEN":        "secret-7",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("ATOMIC_TEST_KEEP", "kept-1")
	t.Setenv("OPENAI_BASE_URL", "http://kept-2")
	t.Setenv("GITHUB_TOKEN", "kept-3")
	out := mustSucceed(t, testBash(newWorkspace(t, nil)), map[string]any{"command": "env"})
	for k, v := range secrets {
		if strings.Contains(out, v) {
			t.Errorf("env shows %s", k)
		}
	}
	assertContains(t, out, "ATOMIC_TEST_KEEP=kept-1", "OPENAI_BASE_URL=http://kept-2", "GITHUB_TOKEN=kept-3", "PAGER=cat")
}

func TestToolEnvDropsOnlyTheListedSecrets(t *testing.T) {
	in := []string{"PATH=/bin", "ANTHROPIC_API_KEY=x", "anthropic_api_key=y", "MALFORMED", "ATOMIC_HOME=/h", "ATOMIC_SECRET=s", "STRIPE_API_KEY=k"}
	got := strings.Join(toolEnv(in), " ")
	if want := "PATH=/bin MALFORMED ATOMIC_HOME=/h STRIPE_API_KEY=k"; got != want {
		t.Fatalf("toolEnv = %q, want %q", got, want)
	}
}
