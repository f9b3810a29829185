package provider

import (
	"math"
	"strings"
	"testing"
)

func TestPromptCacheKeyIsStablePerRunAndNameAndRevealsNeither(t *testing.T) {
	k := PromptCacheKey("20251201-abc", "general-purpose")
	if k != PromptCacheKey("20251201-abc", "general-purpose") {
		t.Error("the key changed between calls")
	}
	for _, other := range []string{PromptCacheKey("20251201-abc", "lead"), PromptCacheKey("20251201-abd", "general-purpose")} {
		if other == k {
			t.Errorf("%s: another run or name has the same key", other)
		}
	}
	if len(k) > 64 || strings.Contains(k, "abc") || strings.Contains(k, "general") {
		t.Errorf("key %q: want at most 64 characters and no name in it", k)
	}
}

func TestAnthropicCachePricesAreTheRealMultiplesOfInput(t *testing.T) {
	// Anthropic: a cache read is 0.1x the input price, a 5-minute cache
	// write 1.25x. Its pricing page lists Haiku 3 (input $0.25) at the
	// rounded $0.03 and $0.30, within 2 cents of the multiples.
	for _, m := range models {
		if !strings.HasPrefix(m.prefix, "claude") {
			continue
		}
		if math.Abs(m.cacheWrite-1.25*m.in) > 0.02 || math.Abs(m.cacheRead-0.1*m.in) > 0.0051 {
			t.Errorf("%s: input %g, read %g, write %g; want read %g, write %g", m.prefix, m.in, m.cacheRead, m.cacheWrite, 0.1*m.in, 1.25*m.in)
		}
	}
}

func TestOpenAICachedInputIsNeverDearerThanInputAndWritesAreFree(t *testing.T) {
	for _, m := range models {
		if strings.HasPrefix(m.prefix, "claude") {
			continue
		}
		if m.cacheRead > m.in || m.cacheRead <= 0 || m.cacheWrite != 0 {
			t.Errorf("%s: input %g, cached %g, write %g", m.prefix, m.in, m.cacheRead, m.cacheWrite)
		}
	}
}
