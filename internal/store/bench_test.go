package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/provider"
)

// BenchmarkAppendEvents: events emitted into a Recorder and written to
// disk, from the first Emit to Close having flushed them all (sustained,
// not just queued). Budget: over 50,000 events/s. Also reports the store's
// size per 1,000 such events.
func BenchmarkAppendEvents(b *testing.B) {
	path := dbPath(b)
	events := sampleEvents("bench", b.N)
	var w warnings
	b.ResetTimer()
	begin := time.Now()
	m := meta("bench")
	// As atomic does: the API key and the environment's credentials.
	m.Secrets = []string{"sk-ant-api03-0123456789abcdef0123456789abcdef", "sk-proj-0123456789abcdef0123456789"}
	r := Record(path, Options{}, m, w.warn)
	for _, e := range events {
		r.Emit(e)
	}
	r.Close()
	elapsed := time.Since(begin)
	b.StopTimer()
	if got := w.all(); len(got) > 0 {
		b.Fatal(got)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	var size int64
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			size += fi.Size()
		}
	}
	b.ReportMetric(float64(size)/1024/float64(b.N)*1000, "KB-per-1000-events")
}

// BenchmarkOpenFresh: opening a store that does not exist yet: creating
// the file, switching it to WAL and creating the schema.
func BenchmarkOpenFresh(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		st, err := Open(context.Background(), filepath.Join(dir, fmt.Sprint(i), FileName), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
}

// BenchmarkOpenExisting: opening a store an earlier run left.
func BenchmarkOpenExisting(b *testing.B) {
	path := dbPath(b)
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := Open(context.Background(), path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
}

// BenchmarkFirstRunIntoANewStore: a one-answer run's store work when no
// store exists yet (a user's first run; every run of the e2e benchmarks,
// each in a fresh home), from Begin (the first request written) to Exit
// having committed: the model answers at once, so the exit waits for all
// of it. It creates the directories, the session's lock, the database
// and its schema, and commits the run's prompt, events and end.
func BenchmarkFirstRunIntoANewStore(b *testing.B) {
	b.StopTimer()
	dir := b.TempDir()
	evs := answerEvents("first")
	for i := 0; i < b.N; i++ {
		path := filepath.Join(dir, fmt.Sprint(i), "state", "atomic", FileName)
		m := meta("first")
		m.OpenAtBegin = true
		r := Record(path, Options{}, m, nil)
		r.Prompt("hi")
		for _, e := range evs {
			r.Emit(e)
		}
		b.StartTimer()
		r.Begin()
		r.Exit()
		b.StopTimer()
		r.st.db.Close() // the process's exit closes it, untimed as in BenchmarkEndOfAnswer
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/run")
}

// BenchmarkRecordAFanOut: what the store costs per sub-agent of a fan-out,
// from the first Emit to Close having written it all: for each of 1,000
// agents ten events and its history (a task and a one-word answer).
func BenchmarkRecordAFanOut(b *testing.B) {
	const agents = 1000
	events := sampleEvents("bench", 10*agents)
	hist := []provider.Message{
		{Role: provider.RoleUser, Parts: []provider.Part{{Text: "TASK-1: look at internal/cli and say what the run command does"}}},
		{Role: provider.RoleAssistant, Parts: []provider.Part{{Text: "ok"}}},
	}
	var took time.Duration
	var allocs, bytes uint64
	for b.Loop() {
		path := dbPath(b)
		var w warnings
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		r := Record(path, Options{}, meta("bench"), w.warn)
		for i := range agents {
			for _, e := range events[10*i : 10*i+10] {
				r.Emit(e)
			}
			r.History(fmt.Sprintf("general-purpose-%d", i), hist)
		}
		r.Close()
		took += time.Since(start)
		runtime.ReadMemStats(&after)
		allocs += after.Mallocs - before.Mallocs
		bytes += after.TotalAlloc - before.TotalAlloc
		if got := w.all(); len(got) > 0 {
			b.Fatal(got)
		}
	}
	n := float64(b.N * agents)
	b.ReportMetric(float64(took.Microseconds())/n, "us/agent")
	b.ReportMetric(float64(allocs)/n, "allocs/agent")
	b.ReportMetric(float64(bytes)/n, "B/agent")
}
