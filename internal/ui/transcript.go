package ui

import (
	"time"
)

// renderCtx is what entries render with; one per frame.
type renderCtx struct {
	Width    int
	Expanded bool
	Now      time.Time
	Theme    Theme
	md       *markdown
	// LeadBackend is where the lead runs ("native", "claude-code", …).
	LeadBackend string
}

// entry is one item of the transcript. lines returns its rendered lines for
// rc; entries that cannot change any more cache them per width and mode, so
// a frame re-renders only the streaming message and live trees.
type entry interface {
	lines(rc *renderCtx) []string
}

// cacheKey is what a cached rendering depends on.
type cacheKey struct {
	width    int
	expanded bool
	version  int
	backends bool // the agents tree names each row's backend
}

// lineCache holds one rendering.
type lineCache struct {
	key   cacheKey
	lines []string
	ok    bool
}

// get returns the cached lines for k, or renders and stores them.
func (c *lineCache) get(k cacheKey, render func() []string) []string {
	if c.ok && c.key == k {
		return c.lines
	}
	c.key, c.lines, c.ok = k, render(), true
	return c.lines
}

// transcript is the chat's history of entries, oldest first.
type transcript struct {
	entries []entry
}

func (t *transcript) add(e entry) { t.entries = append(t.entries, e) }

func (t *transcript) clear() { t.entries = nil }

// window returns height lines of the transcript ending offset lines above
// its bottom (0: the newest lines), entries separated by a blank line, and
// the offset actually used (clamped to the top). Only the entries needed to
// fill the window are rendered.
func (t *transcript) window(rc *renderCtx, height, offset int) ([]string, int) {
	if height <= 0 {
		return nil, offset
	}
	need := height + max(offset, 0)
	var chunks [][]string
	n := 0
	for i := len(t.entries) - 1; i >= 0 && n < need; i-- {
		ls := t.entries[i].lines(rc)
		if len(ls) == 0 {
			continue
		}
		if len(chunks) > 0 {
			chunks = append(chunks, []string{""})
			n++
		}
		chunks = append(chunks, ls)
		n += len(ls)
	}
	all := make([]string, 0, n)
	for i := len(chunks) - 1; i >= 0; i-- {
		all = append(all, chunks[i]...)
	}
	offset = min(max(offset, 0), max(len(all)-height, 0))
	end := len(all) - offset
	start := max(end-height, 0)
	return all[start:end], offset
}
