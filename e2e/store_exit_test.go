//go:build unix

package e2e

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/store"
)

// oneAnswer is S1: one prompt, one answer.
const oneAnswer = "rules: [{respond: {text: the one answer}}]"

func TestAOneAnswerRunLeavesEveryEventInTheStoreItsCompleteLastWithoutCheckpointingAtExit(t *testing.T) {
	srv := server(t, oneAnswer)
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			state := t.TempDir()
			r := runIn(t, srv, state, t.TempDir(), "-p", "hi", "--output-format", format)
			if r.code != 0 || !strings.Contains(r.stdout, "the one answer") {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			// Exit left the WAL to the next open: no checkpoint at exit.
			if fi, err := os.Stat(filepath.Join(state, "atomic", store.FileName+"-wal")); err != nil || fi.Size() == 0 {
				t.Fatalf("the store's WAL after the run: %v; want it left with the run's commits", err)
			}
			exported := events(t, sessionsExport(t, state))
			if len(exported) < 3 || exported[0].Type != event.SessionStart {
				t.Fatalf("the store holds %d events; want the run's, session.start first", len(exported))
			}
			last := exported[len(exported)-1]
			if d := data[event.CompleteData](t, last); last.Type != event.Complete || d.Result != "the one answer" {
				t.Fatalf("the store's last event is %s %s; want the lead's complete with the answer", last.Type, last.Data)
			}
			if format == "stream-json" {
				printed := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
				stored := strings.Split(strings.TrimSuffix(sessionsExport(t, state), "\n"), "\n")
				if !slices.Equal(printed, stored) {
					t.Fatalf("stream-json printed %d lines, the store holds %d: want the same lines", len(printed), len(stored))
				}
			}
			if list := listSessions(t, state); len(list) != 1 || list[0].Status != store.StatusCompleted {
				t.Fatalf("sessions: %+v; want the one run, completed", list)
			}
		})
	}
}

func TestAKill9RightAfterTheAnswerLosesNothingPrintedAsStreamJSONAndAtMostTheLastEventsOfText(t *testing.T) {
	srv := server(t, oneAnswer)
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			state := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := withState(command(t, ctx, srv, "anthropic", t.TempDir(), "-p", "hi", "--output-format", format), state)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stdout)
			sc.Buffer(make([]byte, 1<<20), 16<<20)
			var printed []string
			for sc.Scan() {
				printed = append(printed, sc.Text())
				if strings.Contains(sc.Text(), "the one answer") && (format == "text" || strings.HasPrefix(sc.Text(), `{"type":"complete"`)) {
					syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
				}
			}
			cmd.Wait()
			list := sessionsCmd(t, state)
			if list.code != 0 || list.stderr != "" {
				t.Fatalf("atomic sessions after the kill: exit %d, stderr %q; want the store to open cleanly", list.code, list.stderr)
			}
			export := sessionsExport(t, state)
			exported := strings.Split(strings.TrimSuffix(export, "\n"), "\n")
			if format == "stream-json" {
				if len(exported) < len(printed) || !slices.Equal(exported[:len(printed)], printed) {
					t.Fatalf("stream-json printed %d lines before the kill, the store holds %d: want every printed line", len(printed), len(exported))
				}
				return
			}
			// Text is printed at once: the store holds the run's events in
			// order, possibly without the last ones, or none when the kill
			// came before the first commit (README: Sessions).
			want := []event.Type{event.SessionStart, event.MessageDelta, event.MessageComplete, event.UsageUpdate, event.TurnEnd, event.Complete}
			var got []event.Type
			var stored []event.Raw
			if export != "" {
				stored = events(t, export)
			}
			for _, e := range stored {
				if len(got) == 0 || got[len(got)-1] != e.Type {
					got = append(got, e.Type)
				}
			}
			if len(got) > len(want) || !slices.Equal(got, want[:len(got)]) {
				t.Fatalf("the store holds events %v after the kill; want a prefix of %v", got, want)
			}
			t.Logf("text: the store holds %v after a kill -9 right after the answer", got)
		})
	}
}
