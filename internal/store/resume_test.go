package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

func TestAResumedSessionAppendsToTheSameRowAndRunsAgain(t *testing.T) {
	path := dbPath(t)
	first := sampleEvents("s1", 6)
	r := Record(path, Options{}, meta("s1"), nil)
	r.Prompt("first prompt")
	r.Emit(event.Event{Type: event.SubagentStart, AgentID: "explore-1", ParentAgentID: "lead"})
	for _, e := range first {
		r.Emit(e)
	}
	r.Close() // no complete: ends interrupted

	m := meta("s1")
	m.Resume = true
	second := sampleEvents("s1", 4)
	r = Record(path, Options{}, m, nil)
	r.Prompt("second prompt")
	r.Emit(event.Event{Type: event.SubagentStart, AgentID: "plan-1", ParentAgentID: "lead"})
	for _, e := range second {
		r.Emit(e)
	}
	r.Emit(event.Event{Type: event.Complete, AgentID: "lead", Data: event.CompleteData{Result: "ok"}})
	r.Close()

	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	all, err := st.Sessions(context.Background())
	if err != nil || len(all) != 1 {
		t.Fatalf("sessions %+v, %v; want the one session", all, err)
	}
	s := all[0]
	if s.Status != StatusCompleted || s.Title != "first prompt" || s.Agents != 2 || s.Ended.IsZero() {
		t.Fatalf("session %+v; want completed, titled by the first prompt, 2 agents, an end", s)
	}
	if p, _ := st.Prompts(context.Background(), "s1"); strings.Join(p, "|") != "first prompt|second prompt" {
		t.Fatalf("prompts %q", p)
	}
	got := stored(t, path, "s1")
	if len(got) != 1+6+1+4+1 {
		t.Fatalf("%d events stored; want %d", len(got), 13)
	}
	if want := streamJSON(t, second); strings.Join(got[8:12], "\n") != strings.Join(want, "\n") {
		t.Fatalf("resumed events not appended in order:\n%s", strings.Join(got, "\n"))
	}
}

func TestResumingASessionTheStoreDoesNotHoldWarns(t *testing.T) {
	var w warnings
	m := meta("ghost")
	m.Resume = true
	r := Record(dbPath(t), Options{}, m, w.warn)
	r.Emit(event.Event{Type: event.MessageDelta, AgentID: "lead"})
	r.Close()
	if got := w.all(); len(got) != 1 || !errors.Is(got[0], ErrUnknownSession) {
		t.Fatalf("warnings %v; want one naming the unknown session", got)
	}
}

func TestLatestIsTheNewestSessionOfTheDirectory(t *testing.T) {
	path := dbPath(t)
	for _, x := range []struct{ id, dir string }{{"a-old", "/p"}, {"a-new", "/p"}, {"b", "/q"}} {
		m := meta(x.id)
		m.Dir = x.dir
		r := Record(path, Options{}, m, nil)
		r.Prompt(x.id)
		r.Close()
		time.Sleep(2 * time.Millisecond)
	}
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if s, err := st.Latest(context.Background(), "/p"); err != nil || s.ID != "a-new" {
		t.Fatalf("latest in /p: %+v, %v; want a-new", s, err)
	}
	if _, err := st.Latest(context.Background(), "/elsewhere"); !errors.Is(err, ErrNoSession) || !strings.Contains(err.Error(), "/elsewhere") {
		t.Fatalf("latest in a directory without sessions: %v; want ErrNoSession naming it", err)
	}
}

func TestHistoriesReturnsEveryAgentsSavedHistory(t *testing.T) {
	path := dbPath(t)
	r := Record(path, Options{}, meta("s1"), nil)
	r.Prompt("p")
	for _, id := range []string{"lead", "explore-1"} {
		r.History(id, []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: "history of " + id}}}})
	}
	r.Close()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h, err := st.Histories(context.Background(), "s1")
	if err != nil || len(h) != 2 || h["explore-1"][0].Parts[0].Text != "history of explore-1" || h["lead"][0].Parts[0].Text != "history of lead" {
		t.Fatalf("histories %+v, %v", h, err)
	}
}
