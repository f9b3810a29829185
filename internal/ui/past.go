package ui

import (
	"time"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
)

// Past is what a resumed session showed: its events in bus order and the
// user's prompts with the times they were sent.
type Past struct {
	Events  []event.Event
	Prompts []PastPrompt
	// Note closes the replay ("Resumed session …").
	Note string
}

// PastPrompt is one prompt of a resumed session.
type PastPrompt struct {
	Text string
	Time time.Time
}

// replay folds a resumed session into the chat as it happened: each prompt
// goes before the first event that came after it was sent, and the events
// rebuild the transcript and the agents trees through the same path live
// events take.
func (m *Model) replay(p Past) {
	prompts := p.Prompts
	for _, e := range bus.Replay(p.Events) {
		for len(prompts) > 0 && !prompts[0].Time.After(e.Time) {
			m.tr.add(&userEntry{text: prompts[0].Text})
			prompts = prompts[1:]
		}
		m.applyEvent(e)
	}
	for _, pr := range prompts {
		m.tr.add(&userEntry{text: pr.Text})
	}
	// That process has gone: nothing of it is still streaming or running.
	if m.streaming != nil {
		m.streaming.streaming = false
	}
	for _, t := range m.tools {
		t.state, t.result = toolCancelled, "interrupted: Atomic exited before it returned"
		t.version++
	}
	clear(m.tools)
	m.busy, m.streaming, m.cut = false, nil, nil
	if p.Note != "" {
		m.note(noteInfo, p.Note)
	}
}
