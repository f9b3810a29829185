package config

import (
	"fmt"

	"github.com/atomic-agent/atomic/internal/provider/anthropic"
	"github.com/atomic-agent/atomic/internal/provider/openai/settings"
)

// BaseURLFor returns the base URL raw (--base-url, the environment's, the
// config file's) in the one form a client of api wants, whoever the client
// is: the native providers and every external CLI get the same form, so
// that "http://host", "http://host/" and "http://host/v1" reach the same
// endpoints everywhere. For "anthropic" that is the host root (the
// Messages API is under /v1/messages: Claude Code given ".../v1" would ask
// ".../v1/v1/messages"); for "openai" the API root, "/v1" added to a bare
// host (Codex, OpenCode and Copilot append /chat/completions or
// /responses). An empty raw stays empty: the client's own default.
func BaseURLFor(api, raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	switch api {
	case "anthropic":
		return anthropic.NormaliseBaseURL(raw)
	case "openai":
		return settings.NormaliseBaseURL(raw)
	}
	return "", fmt.Errorf("base URL %q: unknown API %q (want anthropic or openai)", raw, api)
}
