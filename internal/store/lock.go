package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A session is held by one process at a time: the run that records it.
// The hold is an OS lock on a file per session in the state directory
// (flock on Unix, LockFileEx on Windows), which the kernel releases when
// the process ends however it ends, SIGKILL included: a crashed holder
// never blocks a resume. The file holds the holder's pid, for the message
// that refuses a second process.

// LocksDir is the directory of the sessions' lock files, next to the
// database file at path.
func LocksDir(path string) string { return filepath.Join(filepath.Dir(path), "locks") }

// HoldWait is how long HoldSession retries a lock another process has
// before refusing: long enough for a holder that was just killed to be
// gone and for a reader's brief probe (Store.Sessions) to end.
const HoldWait = time.Second

// holdRetry is the pause between two tries.
const holdRetry = 20 * time.Millisecond

// HeldError refuses a session another live process holds.
type HeldError struct {
	ID  string
	PID int // 0 when the holder's pid could not be read
}

func (e *HeldError) Error() string {
	who := "another Atomic"
	if e.PID > 0 {
		who = fmt.Sprintf("another Atomic (pid %d)", e.PID)
	}
	return fmt.Sprintf("session %s is open in %s; wait for it to end or use --continue/--resume another", e.ID, who)
}

// Hold is this process's hold on a session; Release ends it.
type Hold struct {
	f *os.File
}

// HoldSession takes session id of the store whose database file is path
// for this process, creating its lock file. When another process holds
// it, HoldSession retries for HoldWait, then returns a *HeldError naming
// the holder's pid.
func HoldSession(ctx context.Context, path, id string) (*Hold, error) {
	if err := validID(id); err != nil {
		return nil, err
	}
	dir := LocksDir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("holding session %s: %w", id, err)
	}
	name := filepath.Join(dir, id+".lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("holding session %s: %w", id, err)
	}
	deadline := time.Now().Add(HoldWait)
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("holding session %s: %w", id, err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, &HeldError{ID: id, PID: holderPID(name)}
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("holding session %s: %w", id, context.Cause(ctx))
		case <-time.After(holdRetry):
		}
	}
	// The pid is written over the previous holder's in one write, so a
	// reader sees one or the other.
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if _, err := f.WriteAt(pid, 0); err == nil {
		f.Truncate(int64(len(pid)))
	}
	return &Hold{f: f}, nil
}

// Release ends the hold (nil: nothing to release).
func (h *Hold) Release() error {
	if h == nil || h.f == nil {
		return nil
	}
	err := errors.Join(unlock(h.f), h.f.Close())
	h.f = nil
	if err != nil {
		return fmt.Errorf("releasing the session: %w", err)
	}
	return nil
}

// Held reports whether a live process holds session id of the store
// whose database file is path. It only probes (takes a shared lock and
// lets it go at once); a session without a lock file is not held.
func Held(path, id string) bool {
	if validID(id) != nil {
		return false
	}
	f, err := os.Open(filepath.Join(LocksDir(path), id+".lock"))
	if err != nil {
		return false
	}
	defer f.Close()
	held, err := probe(f)
	return err == nil && held
}

// holderPID reads the pid in lock file name (0 when it cannot).
func holderPID(name string) int {
	b, err := os.ReadFile(name)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// validID refuses an id that is no plain file name: a lock file is named
// after it.
func validID(id string) error {
	if id == "" || len(id) > 200 || id[0] == '.' {
		return fmt.Errorf("%w %q (atomic sessions lists them)", ErrUnknownSession, id)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("%w %q (atomic sessions lists them)", ErrUnknownSession, id)
		}
	}
	return nil
}
