package codex

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-agent/atomic/internal/lazy"
	"github.com/atomic-agent/atomic/internal/tools"
)

// openAIKeys are the credentials Codex's built-in providers read.
var openAIKeys = []string{"OPENAI_API_KEY", "CODEX_API_KEY", "AZURE_OPENAI_API_KEY"}

// userEnv is the environment of Codex on the user's own login and config:
// without the secrets it does not use (ANTHROPIC_API_KEY and the other
// providers' keys, Atomic's own), keeping OpenAI's and those the user's
// config.toml names as a model provider's env_key.
func userEnv(environ []string) []string {
	keep := append(append([]string(nil), openAIKeys...), configEnvKeys(environ)...)
	return tools.EnvFor(environ, keep...)
}

// generatedEnv is the environment of Codex on Atomic's provider (a
// throwaway CODEX_HOME): no provider key of the user's at all, only
// Atomic's key under keyEnv ("none" when there is none: a local server
// wants none, Codex wants the variable set).
func generatedEnv(environ []string, home, key string) []string {
	if key == "" {
		key = "none"
	}
	return append(tools.EnvFor(environ), "CODEX_HOME="+home, keyEnv+"="+key)
}

// envKeyLine matches a model provider's env_key in config.toml.
var envKeyLine = lazy.Regexp{Expr: `(?m)^\s*env_key\s*=\s*["']([A-Za-z_][A-Za-z0-9_]*)["']`}

// configEnvKeys are the variables the user's Codex config.toml
// ($CODEX_HOME, else ~/.codex) reads provider keys from.
func configEnvKeys(environ []string) []string {
	get := func(name string) string {
		for i := len(environ) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(environ[i], "="); ok && k == name {
				return v
			}
		}
		return ""
	}
	home := get("CODEX_HOME")
	if home == "" {
		if h := get("HOME"); h != "" {
			home = filepath.Join(h, ".codex")
		}
	}
	if home == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range envKeyLine.Get().FindAllSubmatch(data, -1) {
		out = append(out, string(m[1]))
	}
	return out
}
