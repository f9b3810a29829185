package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-agent/atomic/internal/event"
)

func TestFooterShowsTheShareOfInputReadFromThePromptCache(t *testing.T) {
	var u usageInfo
	u.update(event.LeadID, event.UsageUpdateData{
		Usage: event.Usage{InputTokens: 1_000, CacheReadTokens: 8_000, CacheCreationTokens: 1_000, OutputTokens: 500},
		Total: event.Usage{InputTokens: 1_000, CacheReadTokens: 8_000, CacheCreationTokens: 1_000, OutputTokens: 500, CostUSD: 0.01},
	})
	line := ansi.Strip(statusLine{Model: "claude-sonnet-4-5", Usage: u}.render(DefaultTheme(), 200))
	if !strings.Contains(line, "10.5k tokens (↑10.0k ↓500, 80% cached)") {
		t.Errorf("footer %q: want the input with its cached share", line)
	}
	plain := ansi.Strip(statusLine{Model: "m", Usage: usageInfo{total: event.Usage{InputTokens: 10, OutputTokens: 5}}}.render(DefaultTheme(), 200))
	if strings.Contains(plain, "cached") {
		t.Errorf("footer %q: nothing was cached", plain)
	}
}
