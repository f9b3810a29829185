package stats

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/observe"
)

// session is the events of one run: a lead that spawns one sub-agent per
// outcome ("ok" or "fail"), each lasting 1 s more than the one before,
// then completes. Events are given as a store gives them back: decoded
// from JSON, payloads undecoded.
func session(t *testing.T, id string, start time.Time, outcomes ...string) []event.Event {
	t.Helper()
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	evs := []event.Event{{Type: event.SessionStart, Time: at(0), SessionID: id, AgentID: "lead",
		Data: event.SessionStartData{Model: "m", Provider: "anthropic"}}}
	for i, o := range outcomes {
		sub, call := "explore-"+string(rune('1'+i)), "call-"+string(rune('1'+i))
		in, _ := json.Marshal(map[string]string{"description": "d", "prompt": "p", "subagent_type": "explore"})
		done := event.SubagentCompleteData{Success: o == "ok", ToolUses: 2, Usage: event.Usage{InputTokens: 100, OutputTokens: 10, CostUSD: 0.01}}
		if o != "ok" {
			done.Error = "failed"
		}
		evs = append(evs,
			event.Event{Type: event.ToolStart, Time: at(1), SessionID: id, AgentID: "lead", ToolCallID: call,
				Data: event.ToolStartData{Name: "task", Input: in, SubagentID: sub}},
			event.Event{Type: event.SubagentStart, Time: at(1), SessionID: id, AgentID: sub, ParentAgentID: "lead", ToolCallID: call,
				Data: event.SubagentStartData{AgentType: "explore", Backend: "native"}},
			event.Event{Type: event.ToolStart, Time: at(1), SessionID: id, AgentID: sub, ParentAgentID: "lead", ToolCallID: sub + "/t1",
				Data: event.ToolStartData{Name: "read"}},
			event.Event{Type: event.ToolStart, Time: at(1), SessionID: id, AgentID: sub, ParentAgentID: "lead", ToolCallID: sub + "/t2",
				Data: event.ToolStartData{Name: "grep"}},
			event.Event{Type: event.UsageUpdate, Time: at(1), SessionID: id, AgentID: sub, ParentAgentID: "lead",
				Data: event.UsageUpdateData{Usage: done.Usage}},
			event.Event{Type: event.SubagentComplete, Time: at(2 + i), SessionID: id, AgentID: sub, ParentAgentID: "lead", ToolCallID: call, Data: done},
			event.Event{Type: event.ToolComplete, Time: at(2 + i), SessionID: id, AgentID: "lead", ToolCallID: call,
				Data: event.ToolCompleteData{Name: "task", Success: o == "ok"}})
	}
	evs = append(evs, event.Event{Type: event.Complete, Time: at(10), SessionID: id, AgentID: "lead", Data: event.CompleteData{NumTurns: 1}})
	var buf bytes.Buffer
	enc := event.NewEncoder(&buf)
	for _, e := range evs {
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	var out []event.Event
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var r event.Raw
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Event())
	}
	return out
}

func TestStatsOverStoredSessionsCountEveryAgentOfTheSessionsSince(t *testing.T) {
	day1 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	day2 := day1.AddDate(0, 0, 1)
	all := [][]event.Event{
		session(t, "s1", day1, "ok", "fail"),
		session(t, "s2", day2, "ok", "ok", "fail"),
	}
	// What a store does: yield the sessions started since.
	store := func(_ context.Context, since time.Time, yield func([]event.Event) error) error {
		for _, s := range all {
			if !s[0].Time.Before(since) {
				if err := yield(s); err != nil {
					return err
				}
			}
		}
		return nil
	}
	tests := []struct {
		name                    string
		since                   time.Time
		explores, errors, leads int
		p50, p95                time.Duration
	}{
		{"every session", time.Time{}, 5, 2, 2, 2 * time.Second, 3 * time.Second},
		{"the second day only", day2, 3, 1, 1, 2 * time.Second, 3 * time.Second},
		{"none after the last", day2.Add(time.Hour), 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans, _, err := FromSessions(store)(context.Background(), tt.since)
			if err != nil {
				t.Fatal(err)
			}
			rows := map[string]Row{}
			for _, r := range Aggregate(spans) {
				rows[r.Type+"/"+r.Backend] = r
			}
			ex, lead := rows["Explore/native"], rows["lead/native"]
			if ex.Spawns != tt.explores || ex.Errors != tt.errors || lead.Spawns != tt.leads || ex.P50 != tt.p50 || ex.P95 != tt.p95 {
				t.Errorf("rows %+v: want %d explores (%d failed, p50 %v, p95 %v) and %d leads", rows, tt.explores, tt.errors, tt.p50, tt.p95, tt.leads)
			}
			if tt.explores > 0 && (ex.ToolUses != 2*tt.explores || ex.InputTokens != 100*int64(tt.explores) || ex.Tokens != 110*int64(tt.explores)) {
				t.Errorf("explore tools and tokens: %+v", ex)
			}
			if lead.Spawns > 0 && lead.P50 != 10*time.Second {
				t.Errorf("the lead lasts from its first to its last event (10 s): %+v", lead)
			}
		})
	}
}

func TestStatsOverTheLifecycleLogReadBackWhatWasLogged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "atomic.log")
	f, err := observe.OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	log := observe.NewLogger(f)
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	spans := []observe.Span{
		span("Explore", "codex", ms(1500), "completed", 3, event.Usage{InputTokens: 7, OutputTokens: 3, CostUSD: 0.5}),
		span("Explore", "codex", ms(2500), "error", 1, event.Usage{}),
	}
	spans[1].Start, spans[1].End, spans[1].Error = t0.Add(time.Hour), t0.Add(time.Hour+ms(2500)), "boom"
	for _, s := range spans {
		if err := log.Started(s); err != nil {
			t.Fatal(err)
		}
		if err := log.Ended(s); err != nil {
			t.Fatal(err)
		}
	}
	f.WriteString(`{"time":"2026-11-01T09:00:00Z","msg":"agent.e` + "\n") // a line cut by a crash
	f.Close()

	got, warn, err := FromLog(path)(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warn) != 1 {
		t.Errorf("warnings %q: want one naming the skipped line", warn)
	}
	rows := Aggregate(got)
	want := Row{Type: "Explore", Backend: "codex", Spawns: 2, Errors: 1, P50: ms(1500), P95: ms(2500), P50MS: 1500, P95MS: 2500,
		ToolUses: 4, InputTokens: 7, OutputTokens: 3, Tokens: 10, CostUSD: 0.5}
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("rows %+v, want [%+v]", rows, want)
	}
	later, _, _ := FromLog(path)(context.Background(), t0.Add(time.Minute))
	if len(later) != 1 || later[0].Error != "boom" {
		t.Errorf("since a minute after the first: %+v, want the failed one only", later)
	}
	none, _, err := FromLog(filepath.Join(t.TempDir(), "absent.log"))(context.Background(), time.Time{})
	if err != nil || len(none) != 0 {
		t.Errorf("an absent log: %v, %v; want no spans and no error", none, err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

func TestAStoreThatCannotBeReadFallsBackToTheLogWithAWarning(t *testing.T) {
	logged := []observe.Span{{Kind: observe.KindLead, Type: "lead", Backend: "native", Start: t0, End: t0.Add(time.Minute), Status: "completed"}}
	broken := errors.New("file is not a database")
	fromLog := func(context.Context, time.Time) ([]observe.Span, []string, error) { return logged, nil, nil }
	src := Fallback(func(context.Context, time.Time) ([]observe.Span, []string, error) {
		return nil, nil, broken
	}, fromLog, "the session store /s/sessions.db")
	spans, warn, err := src(context.Background(), time.Time{})
	if err != nil {
		t.Fatalf("a store that cannot be read failed the stats: %v", err)
	}
	if len(spans) != 1 || spans[0].Type != "lead" {
		t.Errorf("spans %+v, want the log's", spans)
	}
	if len(warn) != 1 || !strings.Contains(warn[0], "/s/sessions.db") || !strings.Contains(warn[0], broken.Error()) || !strings.Contains(warn[0], "lifecycle log") {
		t.Errorf("warnings %q, want one naming the store, its error and the log", warn)
	}

	ok := Fallback(fromLog, func(context.Context, time.Time) ([]observe.Span, []string, error) {
		t.Error("the log was read although the store could be")
		return nil, nil, nil
	}, "the store")
	if _, warn, err := ok(context.Background(), time.Time{}); err != nil || len(warn) != 0 {
		t.Errorf("a readable store: warnings %q, error %v", warn, err)
	}

	both := Fallback(func(context.Context, time.Time) ([]observe.Span, []string, error) { return nil, nil, broken },
		func(context.Context, time.Time) ([]observe.Span, []string, error) {
			return nil, nil, errors.New("log unreadable")
		}, "the store")
	if _, _, err := both(context.Background(), time.Time{}); !errors.Is(err, broken) {
		t.Errorf("both unreadable: error %v, want it to carry the store's", err)
	}
}
