package opencode

import (
	"cmp"

	"github.com/atomic-agent/atomic/internal/tools"
)

// processEnv is the environment of `opencode serve`, reading its config
// from file. On Atomic's endpoint (generated) it gets no provider key of
// the user's, only Atomic's key under keyEnv, and nothing else leaves the
// machine. On the user's own config OpenCode picks its provider there (any
// of the providers it knows), so it keeps the model providers' keys
// (tools.ProviderKeys); Atomic's own secrets (ATOMIC_*) it never gets.
func processEnv(environ []string, file string, generated bool, apiKey string) []string {
	var env []string
	if generated {
		env = tools.EnvFor(environ)
	} else {
		env = tools.EnvFor(environ, tools.ProviderKeys()...)
	}
	env = append(env, "OPENCODE_CONFIG="+file, "OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS=1")
	if generated {
		env = append(env, keyEnv+"="+cmp.Or(apiKey, "none"), "OPENCODE_DISABLE_MODELS_FETCH=1",
			"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_SHARE=1")
	}
	return env
}
