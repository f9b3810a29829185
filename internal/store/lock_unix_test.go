//go:build unix

package store

import (
	"context"
	"testing"
)

func TestASessionWhoseHolderWasKilledIsInterruptedAndCanBeHeldAgain(t *testing.T) {
	path := dbPath(t)
	runningSession(t, path, "s1")
	h := startHolder(t, path, "s1")
	if s := status(t, path, "s1"); s != StatusRunning {
		t.Fatalf("while held: %s; want running", s)
	}
	h.cmd.Process.Kill() // SIGKILL: the holder has no say
	h.cmd.Wait()
	if s := status(t, path, "s1"); s != StatusInterrupted {
		t.Fatalf("after its holder was killed: %s; want interrupted", s)
	}
	again, err := HoldSession(context.Background(), path, "s1")
	if err != nil {
		t.Fatalf("holding it after the holder was killed: %v", err)
	}
	again.Release()
}
