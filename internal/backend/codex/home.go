package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// keyEnv is the variable the generated model provider reads its key from.
const keyEnv = "ATOMIC_CODEX_API_KEY"

// defaultBaseURL is OpenAI's, for a key given without a base URL.
const defaultBaseURL = "https://api.openai.com/v1"

// writeHome creates a throwaway CODEX_HOME whose config.toml selects a
// model provider built from Atomic's settings (Codex ignores
// OPENAI_BASE_URL and speaks only the Responses API to a custom provider).
// It returns the directory: dir when given (created if need be, kept: the
// CLI's conversations there outlive the run), else a new temporary one,
// which the caller removes.
func writeHome(dir, baseURL, model string) (string, error) {
	var err error
	if dir != "" {
		err = os.MkdirAll(dir, 0o700)
	} else {
		dir, err = os.MkdirTemp("", "atomic-codex-home-")
	}
	if err != nil {
		return "", fmt.Errorf("codex: CODEX_HOME: %w", err)
	}
	if baseURL == "" {
		baseURL = defaultBaseURL
	}
	var b strings.Builder
	b.WriteString("model_provider = \"atomic\"\n")
	if model != "" {
		fmt.Fprintf(&b, "model = %s\n", tomlString(model))
	}
	b.WriteString("\n[model_providers.atomic]\nname = \"atomic\"\n")
	fmt.Fprintf(&b, "base_url = %s\n", tomlString(baseURL))
	b.WriteString("wire_api = \"responses\"\n")
	fmt.Fprintf(&b, "env_key = %s\n", tomlString(keyEnv))
	// Codex's plan tool is off by default in this CLI; on, its plans
	// reach us as turn/plan/updated and show as the agent's checklist.
	b.WriteString("\n[tools.update_plan]\nenabled = true\n")
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(b.String()), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("codex: CODEX_HOME: %w", err)
	}
	return dir, nil
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
