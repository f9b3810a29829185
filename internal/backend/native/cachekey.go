package native

import (
	"strings"

	"github.com/atomic-agent/atomic/internal/provider"
)

// cacheKey is the session's prompt cache key: one per run and agent name,
// so the lead, each teammate and each sub-agent type (its siblings of a
// fan-out together, as they share tools and system prompt) has its own.
// A sub-agent's session id is the run's with its own id after a "/".
func cacheKey(cfg Config) string {
	run, _, _ := strings.Cut(cfg.SessionID, "/")
	return provider.PromptCacheKey(run, cfg.Name)
}
