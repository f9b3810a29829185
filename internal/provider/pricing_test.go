package provider

import (
	"math"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
)

func TestPriceFindsTheLongestMatchingFamily(t *testing.T) {
	cases := []struct {
		model   string
		in, out float64
	}{
		{"claude-sonnet-4-5-20250929", 3, 15},
		{"claude-sonnet-4-20250514", 3, 15},
		{"claude-3-7-sonnet-latest", 3, 15},
		{"claude-opus-4-5-20251101", 5, 25},
		{"claude-opus-4-1-20250805", 15, 75},
		{"claude-opus-4-20250514", 15, 75},
		{"claude-haiku-4-5", 1, 5},
		{"claude-3-5-haiku-20241022", 0.8, 4},
		{"claude-3-haiku-20240307", 0.25, 1.25},
		{"gpt-4o", 2.5, 10},
		{"gpt-4o-mini-2024-07-18", 0.15, 0.6},
		{"gpt-4.1-mini", 0.4, 1.6},
		{"gpt-4.1", 2, 8},
		{"gpt-5", 1.25, 10},
		{"gpt-5-mini", 0.25, 2},
		{"o4-mini", 1.1, 4.4},
		{"o3", 2, 8},
		{"GPT-4o", 2.5, 10},                        // case
		{"openai/gpt-4o-mini", 0.15, 0.6},          // router vendor prefix
		{"anthropic/claude-opus-4.1", 15, 75},      // dotted Claude version
		{"anthropic/claude-sonnet-4.5", 3, 15},     // dotted Claude version
		{"claude-sonnet-4-5-20250929-v1:0", 3, 15}, // suffixes are fine
	}
	for _, c := range cases {
		in, out, ok := Price(c.model)
		if !ok || in != c.in || out != c.out {
			t.Errorf("Price(%q) = %v, %v, %v; want %v, %v, true", c.model, in, out, ok, c.in, c.out)
		}
	}
}

func TestPriceUnknownModels(t *testing.T) {
	for _, m := range []string{"", "llama3.1:8b", "qwen2.5-coder", "mistral-large", "gemini-2.5-pro"} {
		if in, out, ok := Price(m); ok {
			t.Errorf("Price(%q) = %v, %v, true; want unknown", m, in, out)
		}
		if _, ok := Cost(m, event.Usage{InputTokens: 10}); ok {
			t.Errorf("Cost(%q) known, want unknown", m)
		}
		if w := ContextWindow(m); w != 0 {
			t.Errorf("ContextWindow(%q) = %d, want 0", m, w)
		}
	}
}

func TestCostCountsEveryKindOfToken(t *testing.T) {
	u := event.Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 2_000_000, CacheCreationTokens: 400_000}
	cases := []struct {
		model string
		want  float64
	}{
		// 3 + 1.5 + 2*0.30 + 0.4*3.75
		{"claude-sonnet-4-5", 3 + 1.5 + 0.6 + 1.5},
		// 2.5 + 1 + 2*1.25 + 0.4*2.5 (no cache-write surcharge)
		{"gpt-4o", 2.5 + 1 + 2.5 + 1},
	}
	for _, c := range cases {
		got, ok := Cost(c.model, u)
		if !ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Cost(%q) = %v, %v; want %v", c.model, got, ok, c.want)
		}
	}
}

func TestContextWindowOfKnownFamilies(t *testing.T) {
	cases := map[string]int64{
		"claude-sonnet-4-5-20250929": 200_000,
		"claude-3-5-haiku-latest":    200_000,
		"gpt-4o-mini":                128_000,
		"gpt-4.1":                    1_047_576,
		"gpt-5-nano":                 400_000,
		"o3-mini":                    200_000,
	}
	for m, want := range cases {
		if got := ContextWindow(m); got != want {
			t.Errorf("ContextWindow(%q) = %d, want %d", m, got, want)
		}
	}
}

func TestFillCostSetsCostAndWindowOnlyWhenKnown(t *testing.T) {
	u := FillCost("claude-haiku-4-5", event.Usage{InputTokens: 1000, OutputTokens: 1000})
	if math.Abs(u.CostUSD-0.006) > 1e-12 || u.ContextWindow != 200_000 {
		t.Errorf("known model: %+v, want cost 0.006 and window 200000", u)
	}
	u = FillCost("llama3", event.Usage{InputTokens: 1000})
	if u.CostUSD != 0 || u.ContextWindow != 0 || u.InputTokens != 1000 {
		t.Errorf("unknown model: %+v, want counts kept and nothing filled", u)
	}
}
