package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// storedEvents counts session id's events in the database at path.
func storedEvents(t *testing.T, path, id string) int {
	t.Helper()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n := 0
	if err := st.Events(context.Background(), id, func([]byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestWaitReturnsOnlyOnceEveryEventMarkedIsCommitted(t *testing.T) {
	path := dbPath(t)
	var w warnings
	r := Record(path, Options{}, meta("durable"), w.warn)
	defer r.Close()
	for i, n := range []int{1, 40, 500} {
		for _, e := range sampleEvents("durable", n) {
			r.Emit(e)
		}
		r.Wait(r.Mark())
		want := []int{1, 41, 541}[i]
		if got := storedEvents(t, path, "durable"); got != want {
			t.Fatalf("after Wait(Mark()) the store holds %d events; want all %d emitted", got, want)
		}
	}
	if got := w.all(); len(got) > 0 {
		t.Fatal(got)
	}
}

func TestWaitNeverBlocksWhenTheStoreCannotBeUsed(t *testing.T) {
	tests := map[string]func(t *testing.T) *Recorder{
		"the store cannot be opened": func(t *testing.T) *Recorder {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return Record(filepath.Join(dir, "file", FileName), Options{}, meta("s"), func(error) {})
		},
		"the recorder is closed": func(t *testing.T) *Recorder {
			r := Record(dbPath(t), Options{}, meta("s"), func(error) {})
			r.Close()
			return r
		},
	}
	for name, open := range tests {
		t.Run(name, func(t *testing.T) {
			r := open(t)
			defer r.Close()
			for _, e := range sampleEvents("s", 10) {
				r.Emit(e)
			}
			done := make(chan struct{})
			go func() {
				r.Wait(r.Mark() + 1000) // more than will ever be committed
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Wait blocked although nothing more can be committed")
			}
		})
	}
}

func TestACommitWaitsForThePaceUnlessOutputWaitsOnItOrTheRecorderCloses(t *testing.T) {
	path := dbPath(t)
	var w warnings
	r := startPaced(meta("paced"), w.warn, func() (*Hold, error) { return nil, nil }, func() (*Store, error) {
		return Open(context.Background(), path, Options{})
	}, time.Hour)
	events := sampleEvents("paced", 51)
	r.Emit(events[0])
	r.Wait(r.Mark()) // the first commit is not held back
	if got := storedEvents(t, path, "paced"); got != 1 {
		t.Fatalf("the store holds %d events after the first Wait; want 1", got)
	}
	for _, e := range events[1:41] {
		r.Emit(e)
	}
	time.Sleep(100 * time.Millisecond)
	if got := storedEvents(t, path, "paced"); got != 1 {
		t.Fatalf("the store holds %d events within the pace after a commit; want them held back, 1", got)
	}
	r.Wait(r.Mark()) // output waiting on them: committed now, not in an hour
	if got := storedEvents(t, path, "paced"); got != 41 {
		t.Fatalf("the store holds %d events after Wait; want 41", got)
	}
	for _, e := range events[41:] {
		r.Emit(e)
	}
	r.Close() // within the pace too
	if got := storedEvents(t, path, "paced"); got != 51 {
		t.Fatalf("the store holds %d events after Close; want all 51", got)
	}
	if r.commits != 3 {
		t.Fatalf("%d commits; want 3: the first, the waited one, the last", r.commits)
	}
	if got := w.all(); len(got) > 0 {
		t.Fatal(got)
	}
}
