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
	for _, e := range throughReducer(p.Events) {
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
	m.busy, m.streaming = false, nil
	if p.Note != "" {
		m.note(noteInfo, p.Note)
	}
}

// throughReducer is evs as a view subscribed to a bus that applied them
// gets them: each event followed by the agent.status of every record it
// changed (bus.Options.Records). Stored agent.status events are left out:
// the reducer's replay reports each record again.
func throughReducer(evs []event.Event) []event.Event {
	b := bus.New()
	out := make([]event.Event, 0, len(evs))
	sub := b.SubscribeWith(func(e event.Event) { out = append(out, e) }, bus.Options{Name: "past", Inline: true, Records: true})
	for _, e := range evs {
		if e.Type != event.AgentStatus {
			b.Emit(e)
		}
	}
	sub.Close()
	return out
}
