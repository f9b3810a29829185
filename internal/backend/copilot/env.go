package copilot

import (
	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/tools"
)

// copilotKeys are the credentials the Copilot CLI reads on the user's own
// login (GH_TOKEN and GITHUB_TOKEN are no secret of Atomic's and pass
// anyway) or with the user's own BYOK provider.
var copilotKeys = []string{"COPILOT_GITHUB_TOKEN", "COPILOT_PROVIDER_API_KEY"}

// processEnv is the CLI's environment, marked with mark. With cfg.BaseURL
// (Atomic's endpoint, offline) it gets no provider key of the user's, only
// Atomic's as COPILOT_PROVIDER_API_KEY; on the user's login only Copilot's
// own credentials. Other providers' keys (ANTHROPIC_API_KEY,
// OPENAI_API_KEY…) and Atomic's secrets never.
func processEnv(environ []string, mark string, cfg backend.Config) []string {
	if cfg.BaseURL == "" {
		return append(tools.EnvFor(environ, copilotKeys...), markEnv+"="+mark)
	}
	env := append(tools.EnvFor(environ), markEnv+"="+mark,
		"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+cfg.BaseURL, "COPILOT_PROVIDER_API_KEY="+apiKey(cfg.APIKey))
	if cfg.Model != "" {
		env = append(env, "COPILOT_MODEL="+cfg.Model)
	}
	return env
}
