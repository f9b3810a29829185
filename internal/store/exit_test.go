package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// recorderEnv, set to "how:id:path", makes the test binary a run that
// records session id's answerEvents into the store at path and then, how
// says, exits through Exit ("exit") or tells its parent the events are
// committed and waits to be killed ("kill").
const recorderEnv = "ATOMIC_STORE_TEST_RECORDER"

// answerEvents are a one-answer run's events, its lead's complete last.
func answerEvents(id string) []event.Event {
	evs := sampleEvents(id, 40)
	return append(evs, event.Event{Type: event.Complete, Time: epoch.Add(time.Second), SessionID: id, AgentID: event.LeadID,
		Data: event.CompleteData{Result: "the answer", NumTurns: 1}})
}

func recordAndExit(spec string) int {
	parts := strings.SplitN(spec, ":", 3)
	how, id, path := parts[0], parts[1], parts[2]
	r := Record(path, Options{}, Meta{ID: id, Dir: "/work/project", Backend: "native", Model: "m", OpenAtBegin: true},
		func(err error) { fmt.Println("warning:", err) })
	r.Prompt("hi")
	r.Begin()
	for _, e := range answerEvents(id) {
		r.Emit(e)
	}
	if how == "kill" {
		r.Wait(r.Mark())
		fmt.Println("committed")
		select {} // until killed
	}
	r.Exit()
	return 0 // the process exits with the database open, as atomic does
}

// runRecorder runs the recorder process how and returns once it exited
// (exit) or was killed after committing (kill).
func runRecorder(t *testing.T, how, path, id string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), recorderEnv+"="+how+":"+id+":"+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if how == "kill" {
		if line != "committed\n" {
			t.Fatalf("the recorder said %q; want committed", line)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		return
	}
	if err := cmd.Wait(); err != nil || line != "" {
		t.Fatalf("the recorder: %v, said %q", err, line)
	}
}

func TestExitLeavesTheWALUncheckpointedAndTheNextOpenReadsEveryEventAndTheEnd(t *testing.T) {
	path := dbPath(t)
	runRecorder(t, "exit", path, "exited")
	wal, err := os.Stat(path + "-wal")
	if err != nil || wal.Size() == 0 {
		t.Fatalf("the WAL after Exit: %v; want it left with the session's commits (no checkpoint)", err)
	}
	if got, want := stored(t, path, "exited"), streamJSON(t, answerEvents("exited")); !slices.Equal(got, want) {
		t.Fatalf("the store holds %d events after the process exited; want all %d, the complete last", len(got), len(want))
	}
	s := savedSession(t, path, "exited")
	if s.Status != StatusCompleted || s.Ended.IsZero() || s.Title != "hi" {
		t.Fatalf("session after Exit: %+v; want completed, ended, titled", s)
	}
}

func TestAKill9AfterTheAnswerIsCommittedLosesNoEventAndTheStoreOpens(t *testing.T) {
	path := dbPath(t)
	runRecorder(t, "kill", path, "killed")
	if got, want := stored(t, path, "killed"), streamJSON(t, answerEvents("killed")); !slices.Equal(got, want) {
		t.Fatalf("the store holds %d events after the kill; want all %d committed before it", len(got), len(want))
	}
	// Its complete was committed, its end never was.
	if s := savedSession(t, path, "killed"); s.Status != StatusCompleted || !s.Ended.IsZero() {
		t.Fatalf("session after the kill: %+v; want completed, without an end", s)
	}
}

func TestAFreshStoreIsCreatedUnsyncedButItsSessionsAreWrittenAtSynchronousNormal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", FileName)
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var level int
	if err := st.db.QueryRow(`PRAGMA synchronous`).Scan(&level); err != nil {
		t.Fatal(err)
	}
	if level != 1 {
		t.Fatalf("synchronous is %d after creating the store; want 1 (NORMAL) for the sessions' commits", level)
	}
	if v, err := st.version(context.Background()); err != nil || v != SchemaVersion() {
		t.Fatalf("schema version %d, %v; want %d", v, err, SchemaVersion())
	}
}

func TestWithOpenAtBeginTheStoreWaitsForBeginOrForOutputThatWaitsOnIt(t *testing.T) {
	for name, open := range map[string]func(r *Recorder){
		"Begin":              func(r *Recorder) { r.Begin() },
		"Wait (stream-json)": func(r *Recorder) {},
	} {
		t.Run(name, func(t *testing.T) {
			path := dbPath(t)
			m := meta("deferred")
			m.OpenAtBegin = true
			var w warnings
			r := Record(path, Options{}, m, w.warn)
			defer r.Close()
			r.Emit(answerEvents("deferred")[0])
			time.Sleep(5 * OpenDelay)
			if _, err := os.Stat(path); err == nil {
				t.Fatalf("the store was opened %v after Record, before Begin", 5*OpenDelay)
			}
			open(r)
			r.Wait(r.Mark())
			if got := stored(t, path, "deferred"); len(got) != 1 {
				t.Fatalf("after %s the store holds %d events; want the one emitted", name, len(got))
			}
			if got := w.all(); len(got) > 0 {
				t.Fatal(got)
			}
		})
	}
}

// BenchmarkEndOfAnswer: from the last event of a one-answer run to the
// Recorder done with it, the store already open: Exit commits (the
// process's exit closes the database), Close also checkpoints.
func BenchmarkEndOfAnswer(b *testing.B) {
	for _, how := range []string{"Exit", "Close"} {
		b.Run(how, func(b *testing.B) {
			path := dbPath(b)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				id := fmt.Sprint("s", i)
				m := meta(id)
				m.OpenAtBegin = true
				r := Record(path, Options{}, m, nil)
				r.Prompt("hi")
				r.Begin()
				r.Wait(r.Mark())
				evs := answerEvents(id)
				b.StartTimer()
				for _, e := range evs {
					r.Emit(e)
				}
				if how == "Exit" {
					r.Exit()
					b.StopTimer()
					r.st.db.Close() // what the exit does without a checkpoint is not timed
					b.StartTimer()
				} else {
					r.Close()
				}
			}
		})
	}
}
