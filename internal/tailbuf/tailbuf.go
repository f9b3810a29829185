// Package tailbuf keeps the end of what a child process writes to stderr,
// for the error that says how it ended.
package tailbuf

import (
	"strings"
	"sync"
)

// tailSize is how much of a child's stderr a Tail keeps.
const tailSize = 2048

// Tail keeps the last lines a child wrote to stderr, for the errors of
// its session. Drop, when set, leaves out lines that say nothing (a banner).
type Tail struct {
	Drop func(line string) bool

	mu  sync.Mutex
	buf []byte
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = t.buf[len(t.buf)-tailSize:]
	}
	return len(p), nil
}

// String is the kept text, trimmed.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.Drop == nil {
		return strings.TrimSpace(string(t.buf))
	}
	var keep []string
	for _, l := range strings.Split(string(t.buf), "\n") {
		if l = strings.TrimSpace(l); l != "" && !t.Drop(l) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
