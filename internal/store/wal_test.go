package store

import (
	"context"
	"os"
	"testing"
)

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// record runs one session of n events through a Recorder and closes it.
func record(t *testing.T, path string, opts Options, id string, n int) {
	t.Helper()
	var w warnings
	r := Record(path, opts, meta(id), w.warn)
	for _, e := range sampleEvents(id, n) {
		r.Emit(e)
	}
	r.Close()
	if got := w.all(); len(got) > 0 {
		t.Fatalf("warnings: %v", got)
	}
}

func TestARunOpeningAStoreWhoseWALIsLargeCopiesItIntoTheDatabaseAndTheWALShrinks(t *testing.T) {
	path := dbPath(t)
	// Another process's connection stays open throughout, as when runs
	// exit through Exit: no Close is the last one, which would checkpoint.
	other, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	opts := Options{CheckpointAbove: 64 << 10}

	record(t, path, opts, "s1", 5)
	wal, db := fileSize(t, path+"-wal"), fileSize(t, path)
	if wal > opts.CheckpointAbove {
		t.Fatalf("one short session left a WAL of %d bytes, want under %d for the test", wal, opts.CheckpointAbove)
	}
	record(t, path, opts, "s2", 400) // opened with the WAL under the limit: no copy
	if got := fileSize(t, path); got != db {
		t.Fatalf("the database file went from %d to %d bytes though the WAL was under the limit at the open", db, got)
	}
	if wal = fileSize(t, path+"-wal"); wal <= opts.CheckpointAbove {
		t.Fatalf("a long session left a WAL of %d bytes, want over %d for the test", wal, opts.CheckpointAbove)
	}

	record(t, path, opts, "s3", 5)
	if got := fileSize(t, path); got <= db {
		t.Fatalf("the database file stayed at %d bytes: the WAL (%d bytes) was not copied into it", got, wal)
	}
	if got := fileSize(t, path+"-wal"); got >= wal || got > opts.CheckpointAbove {
		t.Fatalf("the WAL is %d bytes after the copy, want under %d and %d", got, wal, opts.CheckpointAbove)
	}
	got, err := other.Sessions(context.Background())
	if err != nil || len(got) != 3 {
		t.Fatalf("sessions after the copy: %d, %v; want 3", len(got), err)
	}
}
