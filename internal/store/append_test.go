package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// One batch of more events than one INSERT writes, queued before the store
// opens: every row keeps its own seq, type, agent and body, in order, and a
// secret in any of them is masked.
func TestABatchOfManyEventsKeepsEachRowsOwnColumnsInOrder(t *testing.T) {
	const key = "sk-ant-api03-SECRETSECRETSECRET"
	path := dbPath(t)
	release := make(chan struct{})
	m := meta("s1")
	m.Secrets = []string{key}
	r := start(m, nil, func() (*Hold, error) { return nil, nil }, func() (*Store, error) {
		<-release
		return Open(context.Background(), path, Options{})
	})
	n := 2*rowsPerInsert + 3
	for i := range n {
		e := event.Event{Type: event.MessageDelta, Time: epoch, SessionID: "s1", AgentID: fmt.Sprintf("agent-%d", i),
			Data: event.MessageDeltaData{Text: strings.Repeat("x", i) + fmt.Sprintf(" #%d", i)}}
		if i%rowsPerInsert == rowsPerInsert-1 {
			e.Type, e.Data = event.Retry, event.RetryData{Attempt: 1, Error: "x-api-key: " + key}
		}
		r.Emit(e)
	}
	close(release)
	r.Close()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.db.Query(`SELECT seq, type, agent_id, body FROM events WHERE session_id = 's1' ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		var seq int64
		var typ, agent, body string
		if err := rows.Scan(&seq, &typ, &agent, &body); err != nil {
			t.Fatal(err)
		}
		want := event.MessageDelta
		if i%rowsPerInsert == rowsPerInsert-1 {
			want = event.Retry
			if strings.Contains(body, "SECRET") || !strings.Contains(body, "[redacted]") {
				t.Fatalf("row %d: the key is not masked: %s", i, body)
			}
		} else if !strings.Contains(body, fmt.Sprintf(`"text":"%s #%d"`, strings.Repeat("x", i), i)) {
			t.Fatalf("row %d holds another event's body: %s", i, body)
		}
		if seq != int64(i+1) || typ != string(want) || agent != fmt.Sprintf("agent-%d", i) || !strings.Contains(body, `"agent_id":"`+agent+`"`) {
			t.Fatalf("row %d: seq %d, type %s, agent %s, body %s", i, seq, typ, agent, body)
		}
		i++
	}
	if i != n {
		t.Fatalf("%d rows stored, want %d", i, n)
	}
}

// Histories queued in one batch: each agent's last one is what is saved.
func TestTheLastOfAnAgentsHistoriesInOneBatchIsTheOneSaved(t *testing.T) {
	path := dbPath(t)
	release := make(chan struct{})
	r := start(meta("s1"), nil, func() (*Hold, error) { return nil, nil }, func() (*Store, error) {
		<-release
		return Open(context.Background(), path, Options{})
	})
	msg := func(text string) []provider.Message {
		return []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: text}}}}
	}
	r.History("a", msg("a1"))
	r.History("b", msg("b1"))
	r.History("a", msg("a2"))
	r.Emit(event.Event{Type: event.MessageDelta, Time: epoch, SessionID: "s1", AgentID: "a", Data: event.MessageDeltaData{Text: "x"}})
	r.History("a", msg("a3"))
	close(release)
	r.Close()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for agent, want := range map[string]string{"a": "a3", "b": "b1"} {
		got, ok, err := st.LoadHistory(context.Background(), "s1", agent)
		if err != nil || !ok || got[0].Parts[0].Text != want {
			t.Fatalf("%s's history: %+v, %v, %v; want %s", agent, got, ok, err, want)
		}
	}
}
