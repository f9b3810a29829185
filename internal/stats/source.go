package stats

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/observe"
)

// Source gives the agent spans of the sessions started at or after since.
// Warnings are things the reader should know but that do not stop it.
type Source func(ctx context.Context, since time.Time) (spans []observe.Span, warnings []string, err error)

// Sessions yields, one session at a time, the §1 events of every session
// started at or after since (what a session store reads back).
type Sessions func(ctx context.Context, since time.Time, yield func(events []event.Event) error) error

// FromSessions is the Source over a session store: each session's events
// become its agents' spans (SessionSpans).
func FromSessions(sessions Sessions) Source {
	return func(ctx context.Context, since time.Time) ([]observe.Span, []string, error) {
		var spans []observe.Span
		err := sessions(ctx, since, func(events []event.Event) error {
			spans = append(spans, SessionSpans(events)...)
			return nil
		})
		return spans, nil, err
	}
}

// SessionSpans turns one session's events, in order, into the spans of its
// agents, every one ended: those that never ended end at the session's
// last event, as interrupted. agent.status events are not trusted as
// given: the lifecycle reducer derives them again (a store may or may not
// have kept them).
func SessionSpans(events []event.Event) []observe.Span {
	if len(events) == 0 {
		return nil
	}
	var spans []observe.Span
	b := bus.New()
	t := observe.NewTracker(b)
	// Inline: the tracker reads the reducer's counts as they stood at the
	// event it handles.
	sub := b.SubscribeWith(func(e event.Event) {
		if observe.Relevant(e.Type) {
			_, ended := t.Apply(e)
			spans = append(spans, ended...)
		}
	}, bus.Options{Name: "stats", Inline: true})
	last := events[0].Time
	for _, e := range events {
		if e.Time.After(last) {
			last = e.Time
		}
		if e.Type == event.AgentStatus {
			continue
		}
		b.Emit(e)
	}
	sub.Close() // every event handled: spans is complete
	return append(spans, t.Close(last)...)
}

// FromLog is the Source over the lifecycle log at path (observe.ReadLog):
// until the session store is wired in, the log holds every agent's end.
// A log that does not exist yet holds no agents.
func FromLog(path string) Source {
	return func(_ context.Context, since time.Time) ([]observe.Span, []string, error) {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("stats: %w", err)
		}
		defer f.Close()
		spans, skipped, err := observe.ReadLog(f, since)
		var warn []string
		if skipped > 0 {
			warn = append(warn, fmt.Sprintf("%s: skipped %d line(s) that are not JSON", path, skipped))
		}
		return spans, warn, err
	}
}

// Fallback is primary, or, when primary fails, fallback with a warning
// naming primary's error: a session store that cannot be read (corrupt,
// locked) still leaves the lifecycle log to count from.
func Fallback(primary, fallback Source, what string) Source {
	return func(ctx context.Context, since time.Time) ([]observe.Span, []string, error) {
		spans, warn, err := primary(ctx, since)
		if err == nil || ctx.Err() != nil {
			return spans, warn, err
		}
		fspans, fwarn, ferr := fallback(ctx, since)
		if ferr != nil {
			return nil, nil, errors.Join(err, ferr)
		}
		warn = append(warn, fmt.Sprintf("%s could not be read (%v); these figures are from the lifecycle log", what, err))
		return fspans, append(warn, fwarn...), nil
	}
}
