package bus

import (
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// statuses is the agent.status events of evs as "id:status:uses".
func statuses(evs []event.Event) []string {
	var out []string
	for _, e := range evs {
		if d, ok := e.Data.(lifecycle.StatusData); ok {
			out = append(out, d.Agent.ID+":"+string(d.Status)+":"+string(rune('0'+d.Agent.ToolUses)))
		}
	}
	return out
}

func TestARecordsSubscriberGetsEveryRecordChangeAndOthersOnlyStatusChanges(t *testing.T) {
	b := New()
	var plain, records, inline, inlinePlain recorder
	ps := b.SubscribeWith(plain.Emit, Options{Name: "store"})
	rs := b.SubscribeWith(records.Emit, Options{Name: "view", Records: true})
	is := b.SubscribeWith(inline.Emit, Options{Name: "acp", Inline: true, Records: true})
	ip := b.SubscribeWith(inlinePlain.Emit, Options{Name: "sink", Inline: true})
	for _, e := range spawn("general-purpose-1", "c1") {
		b.Emit(e)
	}
	b.Emit(toolStart("general-purpose-1", "t1")) // one tool use: the record changes, its status does not
	b.Emit(finish("general-purpose-1", "c1"))
	flushWithin(t, ps, 5*time.Second)
	flushWithin(t, rs, 5*time.Second)

	want := "[c1:background:0 general-purpose-1:completed:1]"
	for name, r := range map[string]*recorder{"lossless": &plain, "inline": &inlinePlain} {
		if got := statuses(r.events()); fmtList(got) != want {
			t.Errorf("%s subscriber got agent.status %v, want only the status changes %s", name, got, want)
		}
	}
	// subagent.start names the agent and opens its session, the tool use
	// counts one: each a record change the view is handed whole.
	wantAll := "[c1:background:0 general-purpose-1:background:0 general-purpose-1:background:1 general-purpose-1:completed:1]"
	for name, r := range map[string]*recorder{"queued": &records, "inline": &inline} {
		if got := statuses(r.events()); fmtList(got) != wantAll {
			t.Errorf("%s Records subscriber got agent.status %v, want every record change %s", name, got, wantAll)
		}
	}
	// Each comes right after the event that caused it.
	evs := records.events()
	for i, e := range evs {
		if e.Type == event.AgentStatus && (i == 0 || !e.Time.Equal(evs[i-1].Time)) {
			t.Errorf("agent.status %d does not follow its cause: %v", i, e)
		}
	}
	ps.Close()
	rs.Close()
	is.Close()
	ip.Close()
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}

func TestACoalesceRecordsViewRebuiltFromAgentStatusAloneEqualsTheReducer(t *testing.T) {
	b := New()
	gate := make(chan struct{})
	var rec recorder
	v := b.SubscribeWith(func(e event.Event) { <-gate; rec.Emit(e) }, Options{Name: "view", Policy: Coalesce, Bound: 4, Records: true})
	for _, e := range spawn("general-purpose-1", "c1") {
		b.Emit(e)
	}
	for n := range 40 {
		b.Emit(numbered(0, n))
		if n%10 == 5 {
			b.Emit(toolStart("general-purpose-1", "t"+string(rune('a'+n/10))))
		}
	}
	close(gate)
	flushWithin(t, v, 10*time.Second)
	if v.Stats().Dropped == 0 {
		t.Fatal("the view dropped no delta: the resync path was not taken")
	}
	rows := view(rec.events())
	for _, r := range b.Agents() {
		if rows[r.ID] != r {
			t.Fatalf("the view's row of %s is %+v; the reducer's record is %+v", r.ID, rows[r.ID], r)
		}
	}
	v.Close()
}

// mates is the teammate.record events of evs as "name:status:waiting".
func mates(evs []event.Event) []string {
	var out []string
	for _, e := range evs {
		if m, ok := lifecycle.TeammateOf(e); ok {
			out = append(out, m.Name+":"+string(m.Status)+":"+m.Waiting)
		}
	}
	return out
}

func TestARecordsSubscriberGetsEachTeammateWholeWhenItChangesAndNobodyElseDoes(t *testing.T) {
	b := New()
	var plain, records, inline recorder
	ps := b.SubscribeWith(plain.Emit, Options{Name: "store"})
	rs := b.SubscribeWith(records.Emit, Options{Name: "view", Records: true})
	is := b.SubscribeWith(inline.Emit, Options{Name: "acp", Inline: true, Records: true})
	at := time.Now()
	mate := func(status string) event.Event {
		return event.Event{Type: event.TeammateStatus, Time: at, AgentID: "reviewer", ParentAgentID: event.LeadID,
			Data: event.TeammateStatusData{Name: "reviewer", Role: "reviews", Status: status}}
	}
	b.Emit(mate("spawning"))
	b.Emit(mate("working"))
	b.Emit(mate("working")) // no change: no record
	b.Emit(event.Event{Type: event.PermissionRequested, Time: at, AgentID: "reviewer",
		Data: event.PermissionRequestedData{RequestID: "p1", Tool: "bash", Subject: "make test"}})
	b.Emit(event.Event{Type: event.PermissionResolved, Time: at, AgentID: "reviewer",
		Data: event.PermissionResolvedData{RequestID: "p1", Allowed: true}})
	b.Emit(mate("shutdown"))
	b.Emit(mate("working")) // a late status after the end: the reducer ignores it
	flushWithin(t, ps, 5*time.Second)
	flushWithin(t, rs, 5*time.Second)

	want := `[reviewer:spawning: reviewer:working: reviewer:working:bash "make test" reviewer:working: reviewer:shutdown:]`
	for name, r := range map[string]*recorder{"queued": &records, "inline": &inline} {
		if got := fmtList(mates(r.events())); got != want {
			t.Errorf("%s Records subscriber got teammates %s, want each change whole %s", name, got, want)
		}
	}
	if got := mates(plain.events()); len(got) != 0 {
		t.Errorf("a plain subscriber (the store, stream-json) got teammate records %v; they are the views' only", got)
	}
	ps.Close()
	rs.Close()
	is.Close()
}

func TestReplayHandsStoredEventsOnWithTheReducersRecordsNotTheStoredStatuses(t *testing.T) {
	stale := lifecycle.StatusEvent(finish("general-purpose-1", "c1"), lifecycle.Record{ID: "general-purpose-1", ToolCallID: "c1", Status: lifecycle.Error})
	stored := append(spawn("general-purpose-1", "c1"), toolStart("general-purpose-1", "t1"), stale, finish("general-purpose-1", "c1"))
	got := Replay(stored)
	if want := "[c1:background:0 general-purpose-1:background:0 general-purpose-1:background:1 general-purpose-1:completed:1]"; fmtList(statuses(got)) != want {
		t.Errorf("replayed agent.status %v, want every record change the reducer makes %s (and not the stored error)", statuses(got), want)
	}
	if n := len(got) - len(statuses(got)); n != len(stored)-1 {
		t.Errorf("replayed %d other events, want the %d stored ones that are not agent.status", n, len(stored)-1)
	}
}
