package runtime

import (
	"context"
	"fmt"

	"github.com/atomic-agent/atomic/internal/backend"
)

// Compact queues a compaction of the lead's history (/compact), with the
// user's instructions for the summary, for the driver loop: it runs
// between turns, never inside one. done is told the outcome (nil: nobody
// asks); success is also told by the lead's context.compact event.
func (r *Runtime) Compact(instructions string, done func(error)) {
	if done == nil {
		done = func(error) {}
	}
	r.inputs <- input{compact: &compactInput{instructions: instructions, done: done}}
}

// compactInput is a queued /compact.
type compactInput struct {
	instructions string
	done         func(error)
}

// compact carries out a queued /compact.
func (r *Runtime) compact(ctx context.Context, c *compactInput) {
	lc, ok := r.lead.(backend.Compacter)
	if !ok {
		c.done(fmt.Errorf("the lead runs on an external CLI, which keeps its own context: /compact works on the native loop"))
		return
	}
	c.done(lc.Compact(ctx, c.instructions))
}
