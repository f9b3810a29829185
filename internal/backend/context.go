package backend

import (
	"context"

	"github.com/atomic-agent/atomic/internal/provider"
)

// DefaultCompactAt is the share of its context window at which a native
// agent compacts its history before the next request.
const DefaultCompactAt = 0.8

// ContextPolicy is how a native agent sizes its model's context window and
// when it compacts its history. The zero policy takes the pricing table's
// windows and compacts at DefaultCompactAt.
type ContextPolicy struct {
	// Windows are per-model windows in tokens that win over the pricing
	// table (config's "context_windows").
	Windows map[string]int64
	// Window is the window of a model neither Windows nor the table knows
	// (config's "context_window"); 0: unknown, so no automatic compaction
	// (a request refused as too long still compacts and retries).
	Window int64
	// CompactAt is the share of the window at which the history is
	// compacted (0: DefaultCompactAt); 1 or more turns automatic
	// compaction off.
	CompactAt float64
}

// WindowOf is model's context window in tokens, 0 when unknown.
func (p ContextPolicy) WindowOf(model string) int64 {
	if w := p.Windows[model]; w > 0 {
		return w
	}
	if w := provider.ContextWindow(model); w > 0 {
		return w
	}
	return p.Window
}

// Threshold is the context use, in tokens, past which an agent on model
// compacts before its next request; 0: never automatically.
func (p ContextPolicy) Threshold(model string) int64 {
	at := p.CompactAt
	if at == 0 {
		at = DefaultCompactAt
	}
	w := p.WindowOf(model)
	if w == 0 || at <= 0 || at >= 1 {
		return 0
	}
	return int64(float64(w) * at)
}

// Compacter is a session that summarises its older turns on request
// (/compact): the native loop. An external CLI keeps its own context.
type Compacter interface {
	Compact(ctx context.Context, instructions string) error
}

// Rewinder is a session whose conversation can go back to an earlier
// length (/rewind): the native loop. An external CLI keeps its own.
type Rewinder interface {
	History() []provider.Message
	// Truncate keeps the first n messages of the history.
	Truncate(n int)
}
