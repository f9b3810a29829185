package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Export calls fn with the whole conversation of session id as JSON lines
// (without their newline): each event as stream-json printed it, with
// each user prompt placed among them as a user.prompt event of the lead,
// before the first event that came after it. (Messages delivered to an
// agent, a background task's result among them, are events already:
// message.delivered.)
func (s *Store) Export(ctx context.Context, id string, fn func(line []byte) error) error {
	prompts, err := s.TimedPrompts(ctx, id)
	if err != nil {
		return err
	}
	emitUpTo := func(t time.Time, all bool) error {
		for len(prompts) > 0 && (all || !prompts[0].Time.After(t)) {
			line, err := json.Marshal(event.Event{Type: event.UserPrompt, Time: prompts[0].Time, SessionID: id,
				AgentID: event.LeadID, Data: event.UserPromptData{Text: prompts[0].Text}})
			if err != nil {
				return fmt.Errorf("exporting a prompt of %s: %w", id, err)
			}
			if err := fn(line); err != nil {
				return err
			}
			prompts = prompts[1:]
		}
		return nil
	}
	err = s.Events(ctx, id, func(line []byte) error {
		var at struct {
			Time time.Time `json:"time"`
		}
		// A line without a readable time keeps its place after the
		// prompts already placed.
		if json.Unmarshal(line, &at) == nil && !at.Time.IsZero() {
			// A prompt is recorded after every event emitted before it,
			// so the events before it are no later than it.
			if err := emitUpTo(at.Time.Add(-time.Nanosecond), false); err != nil {
				return err
			}
		}
		return fn(line)
	})
	if err != nil {
		return err
	}
	return emitUpTo(time.Time{}, true)
}
