// Package checkpoint keeps, per prompt to the lead, what each file the
// agents' file tools and worktree merges changed held before its first
// change in that prompt, so that /rewind can put the code back.
//
// Snapshots live in memory only, capped in size: they never reach the
// disk (a file's secrets stay where they were) and do not survive
// --resume. Changes made by shell commands are not seen.
package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// DefaultLimit bounds the bytes all snapshots of a session hold.
const DefaultLimit = 64 << 20

// Checkpoint is one prompt's record.
type Checkpoint struct {
	// Seq numbers the prompts of the session from 1.
	Seq int
	// Prompt is the text the user gave the lead.
	Prompt string
	// Time is when the prompt began.
	Time time.Time
	// History is the length of the lead's history before the prompt;
	// Mark fingerprints its last message (see Runtime.Rewind).
	History int
	Mark    string

	files map[string]snapshot
	order []string
}

// snapshot is a file's content before its first change in a checkpoint.
type snapshot struct {
	data    []byte
	mode    fs.FileMode
	existed bool
	lost    string // why it could not be kept ("" when kept)
}

// Summary is a checkpoint as the picker lists it.
type Summary struct {
	Seq    int
	Prompt string
	Time   time.Time
	Files  []string // the files changed, in the order first changed
}

// Store holds a session's checkpoints.
type Store struct {
	mu    sync.Mutex
	cps   []*Checkpoint
	seq   int
	limit int64
	used  int64
}

// New returns a store whose snapshots hold at most limit bytes (0:
// DefaultLimit).
func New(limit int64) *Store {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Store{limit: limit}
}

// Begin opens the checkpoint of a new prompt; history and mark describe
// the lead's conversation just before it.
func (s *Store) Begin(prompt string, now time.Time, history int, mark string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	s.cps = append(s.cps, &Checkpoint{Seq: s.seq, Prompt: prompt, Time: now, History: history, Mark: mark, files: map[string]snapshot{}})
}

// Save records path's content before a change, once per checkpoint. A
// change before the first prompt belongs to no checkpoint.
func (s *Store) Save(path string) {
	path = filepath.Clean(path)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cps) == 0 {
		return
	}
	cp := s.cps[len(s.cps)-1]
	if _, ok := cp.files[path]; ok {
		return
	}
	snap := s.read(path)
	cp.files[path] = snap
	cp.order = append(cp.order, path)
}

// read snapshots path, within the size limit.
func (s *Store) read(path string) snapshot {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return snapshot{}
	case err != nil:
		return snapshot{existed: true, lost: err.Error()}
	case !fi.Mode().IsRegular():
		return snapshot{existed: true, lost: "not a regular file"}
	case s.used+fi.Size() > s.limit:
		return snapshot{existed: true, lost: fmt.Sprintf("over the %d MiB the checkpoints may hold", s.limit>>20)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return snapshot{existed: true, lost: err.Error()}
	}
	s.used += int64(len(data))
	return snapshot{data: data, mode: fi.Mode().Perm(), existed: true}
}

// List returns the checkpoints, newest first.
func (s *Store) List() []Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Summary, 0, len(s.cps))
	for i := len(s.cps) - 1; i >= 0; i-- {
		cp := s.cps[i]
		out = append(out, Summary{Seq: cp.Seq, Prompt: cp.Prompt, Time: cp.Time, Files: append([]string(nil), cp.order...)})
	}
	return out
}

// Get returns checkpoint seq's conversation marks.
func (s *Store) Get(seq int) (Checkpoint, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cp := s.find(seq); cp != nil {
		return Checkpoint{Seq: cp.Seq, Prompt: cp.Prompt, Time: cp.Time, History: cp.History, Mark: cp.Mark}, true
	}
	return Checkpoint{}, false
}

func (s *Store) find(seq int) *Checkpoint {
	for _, cp := range s.cps {
		if cp.Seq == seq {
			return cp
		}
	}
	return nil
}

// Restored says what RestoreCode did.
type Restored struct {
	Written, Deleted []string
	// Lost names the files that could not be put back, with why.
	Lost map[string]string
}

// RestoreCode puts every file changed in checkpoint seq or later back as
// it was before seq's prompt: the earliest snapshot of each file wins.
// Files that did not exist then are deleted.
func (s *Store) RestoreCode(seq int) (Restored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.find(seq) == nil {
		return Restored{}, fmt.Errorf("no checkpoint %d", seq)
	}
	first := map[string]snapshot{}
	for i := len(s.cps) - 1; i >= 0 && s.cps[i].Seq >= seq; i-- {
		for p, snap := range s.cps[i].files {
			first[p] = snap
		}
	}
	paths := make([]string, 0, len(first))
	for p := range first {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out Restored
	var errs []error
	for _, p := range paths {
		snap := first[p]
		switch {
		case snap.lost != "":
			if out.Lost == nil {
				out.Lost = map[string]string{}
			}
			out.Lost[p] = snap.lost
		case !snap.existed:
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("deleting %s: %w", p, err))
				continue
			}
			out.Deleted = append(out.Deleted, p)
		default:
			if err := put(p, snap); err != nil {
				errs = append(errs, err)
				continue
			}
			out.Written = append(out.Written, p)
		}
	}
	return out, errors.Join(errs...)
}

// put writes snap back to p (its folder too, when it was removed since).
func put(p string, snap snapshot) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("restoring %s: %w", p, err)
	}
	// A symlink put there since is replaced, not followed out of the tree.
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("restoring %s: %w", p, err)
		}
	}
	if err := os.WriteFile(p, snap.data, snap.mode); err != nil {
		return fmt.Errorf("restoring %s: %w", p, err)
	}
	if err := os.Chmod(p, snap.mode); err != nil {
		return fmt.Errorf("restoring %s's mode: %w", p, err)
	}
	return nil
}

// Drop forgets checkpoint seq and every later one: their prompts left the
// conversation (a rewind of it). Their snapshots' bytes are freed.
func (s *Store) Drop(seq int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := s.cps[:0]
	for _, cp := range s.cps {
		if cp.Seq < seq {
			keep = append(keep, cp)
			continue
		}
		for _, snap := range cp.files {
			s.used -= int64(len(snap.data))
		}
	}
	clear(s.cps[len(keep):])
	s.cps = keep
}
