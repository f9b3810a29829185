package tools

import (
	"bytes"
	"fmt"
	"sync"
	"unicode/utf8"
)

// sniffLen is how much of a file is examined to tell text from binary.
const sniffLen = 8 << 10

// looksBinary reports whether head, the start of a file, is not text: it
// holds a NUL byte or is not valid UTF-8 (a rune cut by the end of head is
// not held against it).
func looksBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if len(head) >= sniffLen {
		head = trimCutRune(head)
	}
	return !utf8.Valid(head)
}

// trimCutRune drops an incomplete rune at the end of b.
func trimCutRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// cutLine shortens the line s, whose full length is total bytes (s may
// hold only a prefix of it), to at most n bytes on a rune boundary,
// noting how much was cut.
func cutLine(s string, n, total int) string {
	if total <= n && len(s) <= n {
		return s
	}
	cut := min(n, len(s))
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [line cut: %d more bytes]", s[:cut], total-cut)
}

// headTail is an io.Writer that keeps the first and last half of a byte
// budget and counts what it drops in between, so a command's endless
// output costs bounded memory while its start and end stay visible.
// It is safe for concurrent use.
type headTail struct {
	mu    sync.Mutex
	max   int
	head  []byte
	tail  []byte // ring buffer once full
	start int    // index of the oldest tail byte
	total int64
}

func newHeadTail(max int) *headTail {
	return &headTail{max: max}
}

func (h *headTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	h.total += int64(n)
	headMax := h.max / 2
	if room := headMax - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	tailMax := h.max - headMax
	if len(p) >= tailMax {
		h.tail = append(h.tail[:0], p[len(p)-tailMax:]...)
		h.start = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(h.tail) < tailMax {
			k := min(tailMax-len(h.tail), len(p))
			h.tail = append(h.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(h.tail[h.start:], p)
		p = p[k:]
		h.start = (h.start + k) % tailMax
	}
	return n, nil
}

// String returns the kept output, with a note where bytes were dropped.
// Cuts fall on rune boundaries.
func (h *headTail) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	tail := append(append([]byte{}, h.tail[h.start:]...), h.tail[:h.start]...)
	kept := int64(len(h.head) + len(tail))
	if kept == h.total {
		return string(h.head) + string(tail)
	}
	head := trimCutRune(h.head)
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	cut := h.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n… %d bytes cut …\n%s", head, cut, tail)
}
