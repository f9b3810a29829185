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

// transcript is the chat's history of entries, oldest first. In inline
// mode the entries before printed are in the terminal's scrollback and
// are never rendered again.
type transcript struct {
	entries []entry
	printed int
}

func (t *transcript) add(e entry) { t.entries = append(t.entries, e) }

func (t *transcript) clear() { t.entries, t.printed = nil, 0 }

// settle marks printed the entries from printed on that final reports
// final, up to the first that is not, and returns their lines (a blank
// line before each when sep or after the first) and the entries. Order
// is kept: a final entry waits for every entry before it.
func (t *transcript) settle(rc *renderCtx, final func(entry) bool, sep bool) ([]string, []entry) {
	var out []string
	start := t.printed
	for t.printed < len(t.entries) && final(t.entries[t.printed]) {
		out = appendChunk(out, t.entries[t.printed].lines(rc), sep)
		sep = sep || len(out) > 0
		t.printed++
	}
	return out, t.entries[start:t.printed]
}

// tail returns the lines of the entries not yet printed, separated as
// settle separates them.
func (t *transcript) tail(rc *renderCtx, sep bool) []string {
	var out []string
	for _, e := range t.entries[t.printed:] {
		out = appendChunk(out, e.lines(rc), sep)
		sep = sep || len(out) > 0
	}
	return out
}

// appendChunk appends an entry's lines, after a blank line when sep.
func appendChunk(out, ls []string, sep bool) []string {
	if len(ls) == 0 {
		return out
	}
	if sep {
		out = append(out, "")
	}
	return append(out, ls...)
}

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
