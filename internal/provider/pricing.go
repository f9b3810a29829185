package provider

import (
	"strings"

	"github.com/atomic-agent/atomic/internal/event"
)

// modelInfo is what Atomic knows about a model family: list prices in US
// dollars per million tokens and the context window in tokens.
type modelInfo struct {
	prefix     string
	in, out    float64
	cacheRead  float64 // price of input read from the prompt cache
	cacheWrite float64 // price of input written to the prompt cache
	window     int64
}

// models holds the public list prices of Anthropic and OpenAI as published
// on their pricing pages in November 2025 (standard tier, no batch discount;
// Anthropic cache writes at the 5-minute rate). Lookups take the longest
// matching prefix, so a dated model id ("claude-sonnet-4-5-20250929") finds
// its family and a more specific family ("gpt-4o-mini") wins over a shorter
// one ("gpt-4o"). Update this table when the vendors change their prices.
// It is read-only.
var models = []modelInfo{
	// Anthropic: cache reads cost 0.1x input, 5-minute cache writes 1.25x.
	{prefix: "claude-opus-4-5", in: 5, out: 25, cacheRead: 0.5, cacheWrite: 6.25, window: 200_000},
	{prefix: "claude-opus-4-1", in: 15, out: 75, cacheRead: 1.5, cacheWrite: 18.75, window: 200_000},
	{prefix: "claude-opus-4-0", in: 15, out: 75, cacheRead: 1.5, cacheWrite: 18.75, window: 200_000},
	{prefix: "claude-opus-4-2025", in: 15, out: 75, cacheRead: 1.5, cacheWrite: 18.75, window: 200_000},
	{prefix: "claude-opus", in: 5, out: 25, cacheRead: 0.5, cacheWrite: 6.25, window: 200_000},
	{prefix: "claude-3-opus", in: 15, out: 75, cacheRead: 1.5, cacheWrite: 18.75, window: 200_000},
	{prefix: "claude-sonnet", in: 3, out: 15, cacheRead: 0.3, cacheWrite: 3.75, window: 200_000},
	{prefix: "claude-3-7-sonnet", in: 3, out: 15, cacheRead: 0.3, cacheWrite: 3.75, window: 200_000},
	{prefix: "claude-3-5-sonnet", in: 3, out: 15, cacheRead: 0.3, cacheWrite: 3.75, window: 200_000},
	{prefix: "claude-haiku", in: 1, out: 5, cacheRead: 0.1, cacheWrite: 1.25, window: 200_000},
	{prefix: "claude-3-5-haiku", in: 0.8, out: 4, cacheRead: 0.08, cacheWrite: 1, window: 200_000},
	{prefix: "claude-3-haiku", in: 0.25, out: 1.25, cacheRead: 0.03, cacheWrite: 0.3, window: 200_000},

	// OpenAI: cached input has its own price; nothing is charged for
	// cache writes.
	{prefix: "gpt-5-pro", in: 15, out: 120, cacheRead: 15, window: 400_000},
	{prefix: "gpt-5-nano", in: 0.05, out: 0.4, cacheRead: 0.005, window: 400_000},
	{prefix: "gpt-5-mini", in: 0.25, out: 2, cacheRead: 0.025, window: 400_000},
	{prefix: "gpt-5", in: 1.25, out: 10, cacheRead: 0.125, window: 400_000},
	{prefix: "gpt-4.1-nano", in: 0.1, out: 0.4, cacheRead: 0.025, window: 1_047_576},
	{prefix: "gpt-4.1-mini", in: 0.4, out: 1.6, cacheRead: 0.1, window: 1_047_576},
	{prefix: "gpt-4.1", in: 2, out: 8, cacheRead: 0.5, window: 1_047_576},
	{prefix: "gpt-4o-mini", in: 0.15, out: 0.6, cacheRead: 0.075, window: 128_000},
	{prefix: "gpt-4o", in: 2.5, out: 10, cacheRead: 1.25, window: 128_000},
	{prefix: "gpt-4.5", in: 75, out: 150, cacheRead: 37.5, window: 128_000},
	{prefix: "gpt-4-turbo", in: 10, out: 30, cacheRead: 10, window: 128_000},
	{prefix: "gpt-4", in: 30, out: 60, cacheRead: 30, window: 8_192},
	{prefix: "gpt-3.5-turbo", in: 0.5, out: 1.5, cacheRead: 0.5, window: 16_385},
	{prefix: "o4-mini", in: 1.1, out: 4.4, cacheRead: 0.275, window: 200_000},
	{prefix: "o3-mini", in: 1.1, out: 4.4, cacheRead: 0.55, window: 200_000},
	{prefix: "o3-pro", in: 20, out: 80, cacheRead: 20, window: 200_000},
	{prefix: "o3", in: 2, out: 8, cacheRead: 0.5, window: 200_000},
	{prefix: "o1-mini", in: 1.1, out: 4.4, cacheRead: 0.55, window: 128_000},
	{prefix: "o1-pro", in: 150, out: 600, cacheRead: 150, window: 200_000},
	{prefix: "o1", in: 15, out: 60, cacheRead: 7.5, window: 200_000},
}

// lookup finds the family of model. It ignores case and a router's vendor
// prefix ("anthropic/claude-sonnet-4.5" on OpenRouter), and reads dots in
// Claude versions as dashes ("claude-opus-4.1" is "claude-opus-4-1").
func lookup(model string) (modelInfo, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if strings.HasPrefix(m, "claude") {
		m = strings.ReplaceAll(m, ".", "-")
	}
	var best modelInfo
	found := false
	for _, mi := range models {
		if strings.HasPrefix(m, mi.prefix) && len(mi.prefix) > len(best.prefix) {
			best, found = mi, true
		}
	}
	return best, found
}

// Price returns the list price of model in US dollars per million input and
// output tokens, for well-known Claude and GPT families (prices of November
// 2025). ok is false for models it does not know (local models, say).
func Price(model string) (inPerMTok, outPerMTok float64, ok bool) {
	mi, ok := lookup(model)
	if !ok {
		return 0, 0, false
	}
	return mi.in, mi.out, true
}

// Cost is what u cost on model in US dollars, cache reads and writes
// included at their own prices. ok is false when the price is unknown.
func Cost(model string, u event.Usage) (float64, bool) {
	mi, ok := lookup(model)
	if !ok {
		return 0, false
	}
	cacheWrite := mi.cacheWrite
	if cacheWrite == 0 {
		cacheWrite = mi.in
	}
	c := float64(u.InputTokens)*mi.in +
		float64(u.OutputTokens)*mi.out +
		float64(u.CacheReadTokens)*mi.cacheRead +
		float64(u.CacheCreationTokens)*cacheWrite
	return c / 1e6, true
}

// ContextWindow is model's context window in tokens, or 0 when unknown.
func ContextWindow(model string) int64 {
	mi, _ := lookup(model)
	return mi.window
}

// FillCost sets u's CostUSD and ContextWindow for model where they are known
// and returns it; providers call it on each turn's usage.
func FillCost(model string, u event.Usage) event.Usage {
	if c, ok := Cost(model, u); ok {
		u.CostUSD = c
	}
	if w := ContextWindow(model); w > 0 {
		u.ContextWindow = w
	}
	return u
}
