package provider

import (
	"crypto/sha256"
	"encoding/hex"
)

// PromptCacheKey is the cache key of the agents named name in session
// sessionID: the lead, one sub-agent type, one teammate. Siblings of one
// type in a fan-out share it, since they share their tools and system
// prompt: a shared key sends them to the same cache, so the second reads
// the prefix the first wrote. It is a hash, so no name or id leaves the
// machine, and short (OpenAI caps the key's length).
func PromptCacheKey(sessionID, name string) string {
	sum := sha256.Sum256([]byte(sessionID + "\x00" + name))
	return "atomic-" + hex.EncodeToString(sum[:12])
}
