package bus

import "github.com/atomic-agent/atomic/internal/event"

// Replay is stored events evs as a view subscribed with Options.Records
// to a bus that applied them gets them: each event, then an agent.status
// for every record it changed, each the reducer's record. Stored
// agent.status events are left out: the reducer reports each record again.
// A view replays a stored session's past through it, so that past and
// live records both come from a reducer and never from the view's own.
func Replay(evs []event.Event) []event.Event {
	b := New()
	out := make([]event.Event, 0, len(evs))
	sub := b.SubscribeWith(func(e event.Event) { out = append(out, e) }, Options{Name: "replay", Inline: true, Records: true})
	for _, e := range evs {
		if e.Type != event.AgentStatus {
			b.Emit(e)
		}
	}
	sub.Close()
	return out
}
