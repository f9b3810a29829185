// Package inbox holds what is delivered to an agent session between turns
// (a teammate's message, a background task's result) until its next turn
// takes it. A lazy delivery is decided only when taken, so a result the
// agent already read by other means is dropped rather than repeated.
package inbox

import (
	"slices"
	"strings"
	"sync"
)

// Inbox is a FIFO of deliveries. The zero Inbox is ready; it is safe for
// concurrent use.
type Inbox struct {
	mu    sync.Mutex
	items []item
}

type item struct {
	take func() (string, bool)
	live func() bool
}

// Deliver queues text.
func (b *Inbox) Deliver(text string) {
	b.DeliverLazy(func() (string, bool) { return text, true }, func() bool { return true })
}

// DeliverLazy queues a message whose text take returns when the next turn
// takes the inbox, or false when it has become moot by then; live reports,
// without side effects, whether take would still deliver.
func (b *Inbox) DeliverLazy(take func() (string, bool), live func() bool) {
	b.mu.Lock()
	b.items = append(b.items, item{take: take, live: live})
	b.mu.Unlock()
}

// Live reports whether anything queued would still be delivered.
func (b *Inbox) Live() bool {
	b.mu.Lock()
	items := slices.Clone(b.items)
	b.mu.Unlock()
	return slices.ContainsFunc(items, func(it item) bool { return it.live() })
}

// Take empties the inbox and returns the texts still to deliver, in order.
// The deliveries are decided outside the lock: take may call back.
func (b *Inbox) Take() []string {
	b.mu.Lock()
	items := b.items
	b.items = nil
	b.mu.Unlock()
	var out []string
	for _, it := range items {
		if text, ok := it.take(); ok {
			out = append(out, text)
		}
	}
	return out
}

// Clear drops everything queued.
func (b *Inbox) Clear() {
	b.mu.Lock()
	b.items = nil
	b.mu.Unlock()
}

// Compose empties the inbox into one user message: the texts still to
// deliver, then prompt (when not empty), separated by blank lines. An
// external CLI's session sends it as its turn's one message.
func (b *Inbox) Compose(prompt string) string {
	var parts []string
	for _, text := range b.Take() {
		if text != "" {
			parts = append(parts, text)
		}
	}
	if prompt != "" {
		parts = append(parts, prompt)
	}
	return strings.Join(parts, "\n\n")
}
