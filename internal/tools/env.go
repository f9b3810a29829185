package tools

import (
	"slices"
	"strings"
)

// droppedEnv are variables no command the model runs gets: the model
// providers' credentials Atomic itself uses (a command that prints its
// environment would hand them to the model and whoever reads the
// transcript). The user's own tool credentials (GITHUB_TOKEN, AWS_*,
// cloud CLIs) stay: git, gh and the like are what bash is for. A slice,
// not a map: a package-level map is built at init in every process.
var droppedEnv = []string{
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
	"OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "AZURE_OPENAI_API_KEY",
	"COPILOT_PROVIDER_API_KEY", "COPILOT_GITHUB_TOKEN",
	"OPENROUTER_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
	"GROQ_API_KEY", "MISTRAL_API_KEY", "DEEPSEEK_API_KEY", "XAI_API_KEY",
	"TOGETHER_API_KEY", "FIREWORKS_API_KEY", "CEREBRAS_API_KEY",
	"PERPLEXITY_API_KEY", "COHERE_API_KEY", "OLLAMA_API_KEY",
}

// atomicSecretWords mark an ATOMIC_* variable as one of Atomic's secrets.
var atomicSecretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"}

// toolEnv returns environ without droppedEnv and Atomic's own secrets
// (ATOMIC_* names containing KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL).
// Names compare case-insensitively, as a shell on another system might.
func toolEnv(environ []string) []string { return EnvFor(environ) }

// EnvFor is the environment of a child Atomic starts (a command, an MCP
// server, an external CLI): environ without every secret SecretEnv names,
// except the variables named in keep, which that child needs (Claude
// Code's ANTHROPIC_API_KEY, Codex's OPENAI_API_KEY). A child gets only the
// provider keys it uses, so one that prints or leaks its environment
// cannot hand over the others. Names compare case-insensitively.
func EnvFor(environ []string, keep ...string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if SecretEnv(name) && !keeps(keep, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// ProviderKeys are the model providers' credentials SecretEnv names (not
// Atomic's own ATOMIC_* secrets), sorted: for a child that chooses its
// provider from its own configuration.
func ProviderKeys() []string {
	return slices.Sorted(slices.Values(droppedEnv))
}

func keeps(keep []string, name string) bool {
	for _, k := range keep {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// SecretEnv reports whether the variable called name holds a secret no
// command gets and nothing records: a model provider's credential or one
// of Atomic's own (ATOMIC_* names containing KEY, TOKEN, SECRET, PASSWORD
// or CREDENTIAL). Names compare case-insensitively.
func SecretEnv(name string) bool {
	up := strings.ToUpper(name)
	return slices.Contains(droppedEnv, up) || strings.HasPrefix(up, "ATOMIC_") && containsAny(up, atomicSecretWords)
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
