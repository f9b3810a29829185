package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

func TestDirFollowsXDGStateHomeElseHome(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"xdg", map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}, "/x/state/atomic"},
		{"home", map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/atomic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Dir(env(tc.env))
			if err != nil || got != tc.want {
				t.Fatalf("Dir = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := Dir(env(nil)); err == nil {
		t.Fatal("Dir without XDG_STATE_HOME and HOME: no error")
	}
}

func TestOpenMigratesANewStoreToTheCurrentSchemaInWALMode(t *testing.T) {
	path := dbPath(t)
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v int
	var mode string
	if err := st.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if err := st.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion() || mode != "wal" {
		t.Fatalf("user_version %d, journal_mode %q; want %d, wal", v, mode, SchemaVersion())
	}
	for _, table := range []string{"sessions", "events", "prompts", "histories"} {
		var n int
		if err := st.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s: %d, %v", table, n, err)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the store's file: %v, %v; want mode 0600 (it holds conversations)", fi.Mode(), err)
	}
	// Opening again finds the schema current and changes nothing.
	st2, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatalf("reopening: %v", err)
	}
	st2.Close()
}

func TestOpenMigratesAnOlderSchemaForward(t *testing.T) {
	path := dbPath(t)
	// A store at version 0 that already holds an unrelated table: the
	// migration adds the schema and keeps the table.
	raw := rawDB(t, path)
	if _, err := raw.Exec(`CREATE TABLE keep (x INTEGER); INSERT INTO keep VALUES (7)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var x int
	if err := st.db.QueryRow(`SELECT x FROM keep`).Scan(&x); err != nil || x != 7 {
		t.Fatalf("kept table: %d, %v", x, err)
	}
	if _, err := st.Sessions(context.Background()); err != nil {
		t.Fatalf("migrated store: %v", err)
	}
}

func TestNewerSchemaIsRefusedWithAClearMessageAndLeftUnaltered(t *testing.T) {
	path := dbPath(t)
	raw := rawDB(t, path)
	if _, err := raw.Exec(`CREATE TABLE future (x); PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	before, _ := os.ReadFile(path)
	_, err := Open(context.Background(), path, Options{})
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "version 99") {
		t.Fatalf("Open = %v; want ErrNewerSchema naming version 99", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("the newer store's file changed")
	}
}

func TestRecorderStoresEveryEventInOrderAsStreamJSONPrintsIt(t *testing.T) {
	path := dbPath(t)
	var w warnings
	r := Record(path, Options{}, meta("s1"), w.warn)
	events := sampleEvents("s1", 2000)
	r.Prompt("find the handlers")
	for _, e := range events {
		r.Emit(e)
	}
	r.Close()
	if got := w.all(); len(got) != 0 {
		t.Fatalf("warnings: %v", got)
	}
	if diff := cmp.Diff(streamJSON(t, events), stored(t, path, "s1")); diff != "" {
		t.Fatalf("stored events differ from stream-json (-want +got):\n%s", diff)
	}
}

func TestEventsQueuedBeforeTheStoreOpensAreWrittenOnceItDoes(t *testing.T) {
	path := dbPath(t)
	release := make(chan struct{})
	r := start(meta("s1"), nil, func() (*Hold, error) { return nil, nil }, func() (*Store, error) {
		<-release
		return Open(context.Background(), path, Options{})
	})
	events := sampleEvents("s1", 50)
	for _, e := range events {
		r.Emit(e) // the store is not open yet: these only queue
	}
	close(release)
	r.Close()
	if got := stored(t, path, "s1"); len(got) != len(events) {
		t.Fatalf("stored %d events, want %d", len(got), len(events))
	}
}

func TestEmitNeverWaitsForALockedStoreAndCloseFlushesAfterward(t *testing.T) {
	path := dbPath(t)
	release := holdExclusive(t, path)
	var w warnings
	r := Record(path, Options{BusyTimeout: 3 * time.Second}, meta("s1"), w.warn)
	events := sampleEvents("s1", 5000)
	begin := time.Now()
	for _, e := range events {
		r.Emit(e)
	}
	if d := time.Since(begin); d > 200*time.Millisecond {
		t.Errorf("5000 Emits took %s while another process held the store", d)
	}
	time.Sleep(100 * time.Millisecond)
	release()
	r.Close()
	if got := w.all(); len(got) != 0 {
		t.Fatalf("warnings: %v", got)
	}
	if got := stored(t, path, "s1"); len(got) != len(events) {
		t.Fatalf("stored %d events, want %d", len(got), len(events))
	}
}

func TestUnusableStoreWarnsOnceAndTheRunGoesOnWithoutPersistence(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, path string) Options
		want  string
	}{
		{"corrupt", func(t *testing.T, path string) Options {
			writeFile(t, path, bytes.Repeat([]byte("this is not a database "), 400))
			return Options{}
		}, "not a database"},
		{"newer schema", func(t *testing.T, path string) Options {
			raw := rawDB(t, path)
			if _, err := raw.Exec(`PRAGMA user_version = 42`); err != nil {
				t.Fatal(err)
			}
			raw.Close()
			return Options{}
		}, "version 42"},
		{"locked", func(t *testing.T, path string) Options {
			holdExclusive(t, path)
			return Options{BusyTimeout: 50 * time.Millisecond}
		}, "locked"},
		{"full", func(t *testing.T, path string) Options {
			return Options{MaxPages: 12}
		}, "full"},
		{"read-only", func(t *testing.T, path string) Options {
			st, err := Open(context.Background(), path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			makeReadOnly(t, filepath.Dir(path))
			return Options{}
		}, "unable to open|readonly|not permitted|permission denied"}, // the lock file or the database
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := dbPath(t)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			opts := tc.setup(t, path)
			var w warnings
			r := Record(path, opts, meta("s1"), w.warn)
			r.Prompt("hello")
			for _, e := range sampleEvents("s1", 3000) {
				r.Emit(e)
			}
			r.Close()
			got := w.all()
			if len(got) != 1 {
				t.Fatalf("%d warnings, want exactly 1: %v", len(got), got)
			}
			msg := strings.ToLower(got[0].Error())
			if !strings.Contains(msg, "not saved") || !containsAny(msg, strings.Split(tc.want, "|")) {
				t.Fatalf("warning %q: want it to say the session is not saved and %q", got[0], tc.want)
			}
		})
	}
}

func TestSecretsNeverReachTheDatabase(t *testing.T) {
	const key = "sk-ant-api03-SECRETSECRETSECRET"
	path := dbPath(t)
	m := meta("s1")
	m.Secrets = []string{key, "short"}
	r := Record(path, Options{}, m, nil)
	r.Prompt("my key is " + key)
	r.Emit(event.Event{Type: event.Retry, Time: epoch, SessionID: "s1", AgentID: "lead",
		Data: event.RetryData{Attempt: 2, MaxAttempts: 3, Reason: "401", Error: "x-api-key: " + key}})
	r.Close()
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte("SECRETSECRET")) {
			t.Fatalf("%s holds the API key", f)
		}
	}
	got := stored(t, path, "s1")
	if len(got) != 1 || !strings.Contains(got[0], "x-api-key: [redacted]") {
		t.Fatalf("stored %q; want the event with the key redacted", got)
	}
}

func TestSessionRowRecordsTitleStatusAgentsAndEnd(t *testing.T) {
	long := strings.Repeat("explain the code ", 20)
	for _, tc := range []struct {
		name   string
		events []event.Event
		want   string
	}{
		{"completed", []event.Event{{Type: event.Complete, AgentID: "lead", Data: event.CompleteData{Result: "ok"}}}, StatusCompleted},
		{"failed", []event.Event{{Type: event.Complete, AgentID: "lead", Data: event.CompleteData{IsError: true, Error: "boom"}}}, StatusError},
		{"interrupted", []event.Event{{Type: event.Interrupt, AgentID: "lead"}, {Type: event.Complete, AgentID: "lead", Data: event.CompleteData{IsError: true}}}, StatusInterrupted},
		{"closed mid-run", []event.Event{{Type: event.MessageDelta, AgentID: "lead", Data: event.MessageDeltaData{Text: "hi"}}}, StatusInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := dbPath(t)
			r := Record(path, Options{}, meta("s1"), nil)
			r.Prompt(long)
			r.Emit(event.Event{Type: event.SubagentStart, AgentID: "explore-1", ParentAgentID: "lead"})
			r.Emit(event.Event{Type: event.SubagentStart, AgentID: "explore-2", ParentAgentID: "lead"})
			r.Emit(event.Event{Type: event.SubagentUpdate, AgentID: "explore-1", ParentAgentID: "lead"})
			for _, e := range tc.events {
				r.Emit(e)
			}
			r.Close()
			st, err := Open(context.Background(), path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			s, err := st.Session(context.Background(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			if s.Status != tc.want || s.Agents != 2 || s.Ended.IsZero() || s.Dir != "/work/project" || s.Backend != "native" || s.Model != "claude-test" {
				t.Fatalf("session %+v; want status %s, 2 agents, an end", s, tc.want)
			}
			if want := Title(long); s.Title != want || len([]rune(want)) != TitleRunes || !strings.HasSuffix(want, "…") {
				t.Fatalf("title %q; want %q, %d runes", s.Title, want, TitleRunes)
			}
			if p, _ := st.Prompts(context.Background(), "s1"); len(p) != 1 || p[0] != long {
				t.Fatalf("prompts %q", p)
			}
		})
	}
}

func TestASessionWithNothingRecordedLeavesNoRow(t *testing.T) {
	path := dbPath(t)
	Record(path, Options{}, meta("s1"), nil).Close()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, _ := st.Sessions(context.Background()); len(got) != 0 {
		t.Fatalf("sessions %+v; want none", got)
	}
}

func TestSessionsListNewestFirstAndRemoveDeletesEverything(t *testing.T) {
	path := dbPath(t)
	for _, id := range []string{"old", "mid", "new"} {
		r := Record(path, Options{}, meta(id), nil)
		r.Prompt("prompt of " + id)
		r.Emit(event.Event{Type: event.MessageDelta, AgentID: "lead", Data: event.MessageDeltaData{Text: "x"}})
		r.History("lead", []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: id}}}})
		r.Close()
		time.Sleep(2 * time.Millisecond)
	}
	ctx := context.Background()
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, _ := st.Sessions(ctx)
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	if diff := cmp.Diff([]string{"new", "mid", "old"}, ids); diff != "" {
		t.Fatalf("order (-want +got):\n%s", diff)
	}
	if err := st.Remove(ctx, "mid"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`SELECT count(*) FROM events WHERE session_id = 'mid'`, `SELECT count(*) FROM prompts WHERE session_id = 'mid'`,
		`SELECT count(*) FROM histories WHERE session_id = 'mid'`, `SELECT count(*) FROM sessions WHERE id = 'mid'`} {
		var n int
		if err := st.db.QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d, %v", q, n, err)
		}
	}
	for name, err := range map[string]error{
		"remove": st.Remove(ctx, "mid"),
		"events": st.Events(ctx, "nope", func([]byte) error { return nil }),
	} {
		if !errors.Is(err, ErrUnknownSession) {
			t.Errorf("%s of an unknown id: %v; want ErrUnknownSession", name, err)
		}
	}
}

func TestHistoryIsSavedReplacedAndLoadedWithUserAndToolResultImages(t *testing.T) {
	path := dbPath(t)
	first := []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{
		{Text: "go"}, {Image: &provider.Image{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n\x01")}}, {Text: "now"}}}}
	second := append(first, provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{
		{Text: "reading"}, {ToolCall: &provider.ToolCall{ID: "c1", Name: "read", Input: []byte(`{"path":"a.go"}`)}}}},
		provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{ToolResult: &provider.ToolResult{ToolCallID: "c1", Content: "package a",
			Images: []provider.Image{{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n\x00")}}}}}})
	r := Record(path, Options{}, meta("s1"), nil)
	r.Prompt("go")
	r.History("lead", first)
	r.History("lead", second)
	r.History("explore-1", first)
	r.Close()
	ctx := context.Background()
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, ok, err := st.LoadHistory(ctx, "s1", "lead")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if diff := cmp.Diff(second, got); diff != "" {
		t.Fatalf("lead's history (-want +got):\n%s", diff)
	}
	if err := st.SaveHistory(ctx, "s1", "explore-1", second); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := st.LoadHistory(ctx, "s1", "explore-1"); len(got) != 3 {
		t.Fatalf("explore-1's history after SaveHistory: %d messages", len(got))
	}
	if _, ok, err := st.LoadHistory(ctx, "s1", "nobody"); ok || err != nil {
		t.Fatalf("unknown agent: ok %v, %v", ok, err)
	}
}

func TestTwoWritersInOneStoreLoseNoEvent(t *testing.T) {
	path := dbPath(t)
	events := map[string][]event.Event{"a": sampleEvents("a", 3000), "b": sampleEvents("b", 3000)}
	var w warnings
	ra := Record(path, Options{}, meta("a"), w.warn)
	rb := Record(path, Options{}, meta("b"), w.warn)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, e := range events["b"] {
			rb.Emit(e)
		}
	}()
	for _, e := range events["a"] {
		ra.Emit(e)
	}
	<-done
	ra.Close()
	rb.Close()
	if got := w.all(); len(got) != 0 {
		t.Fatalf("warnings: %v", got)
	}
	for id, evs := range events {
		if diff := cmp.Diff(streamJSON(t, evs), stored(t, path, id)); diff != "" {
			t.Errorf("session %s (-want +got):\n%s", id, diff)
		}
	}
}

// rawDB opens path without the store's schema.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// holdExclusive takes an exclusive lock on the store, as another process
// in the middle of a long write would, until release or the test's end.
func holdExclusive(t *testing.T, path string) (release func()) {
	t.Helper()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	raw := rawDB(t, path)
	conn, err := raw.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			conn.ExecContext(context.Background(), `ROLLBACK`)
			conn.Close()
			raw.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// makeReadOnly makes dir and its files unwritable: by permissions, and for
// root (whom permissions do not stop) with the immutable attribute.
func makeReadOnly(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if os.Geteuid() != 0 {
		for _, f := range files {
			os.Chmod(f, 0o400)
		}
		os.Chmod(dir, 0o500)
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return
	}
	args := append([]string{"+i", dir}, files...)
	if out, err := exec.Command("chattr", args...).CombinedOutput(); err != nil {
		t.Skipf("running as root and chattr +i is unavailable (%v: %s): cannot make a read-only store", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", append([]string{"-i", dir}, files...)...).Run() })
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func TestAKeptSessionHasItsRowBeforeAnythingHappensAndEndsCompletedUnprompted(t *testing.T) {
	path := dbPath(t)
	m := meta("s1")
	m.OpenAtBegin = true // as a native lead's: the store would open only at its first request
	r := Record(path, Options{}, m, nil)
	r.Keep()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.Session(context.Background(), "s1")
	if err != nil {
		t.Fatalf("after Keep, before Close: %v; want the session's row", err)
	}
	if s.Status != StatusRunning || !s.Ended.IsZero() {
		t.Fatalf("session %+v; want running, no end", s)
	}
	r.Close()
	if s, err = st.Session(context.Background(), "s1"); err != nil || s.Status != StatusCompleted || s.Ended.IsZero() {
		t.Fatalf("after Close: %+v, %v; want completed (nothing was cut off) with an end", s, err)
	}
}
