package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/store"
	"github.com/atomic-agent/atomic/internal/ui"
)

// resumed is the saved session --continue or --resume picked, held by
// this process (record lets it go when the run ends).
type resumed struct {
	session store.Session
	run     *runtime.Resume
	prompts []store.Prompt
	hold    *store.Hold
}

// past is the session as the chat UI replays it.
func (r *resumed) past() *ui.Past {
	if r == nil {
		return nil
	}
	p := &ui.Past{Events: r.run.Events, Note: fmt.Sprintf("Resumed session %s · %s", r.session.ID, r.session.Title)}
	for _, x := range r.prompts {
		p.Prompts = append(p.Prompts, ui.PastPrompt{Text: x.Text, Time: x.Time})
	}
	return p
}

// resumeSession loads the session --continue (the last one of this
// directory) or --resume ID names: its events and the lead's history. It
// returns nil when neither flag is given.
func (c *common) resumeSession(ctx context.Context, ios IOStreams, s *setup) (*resumed, error) {
	if !c.cont && !c.resume.set {
		return nil, nil
	}
	if c.cont && c.resume.set {
		return nil, errors.New("--continue and --resume: give one of them")
	}
	if c.resume.set && c.resume.id == "" {
		return nil, errors.New("--resume: give the session's id (atomic sessions lists them)")
	}
	st, err := openSessions(ctx, ios)
	if errors.Is(err, fs.ErrNotExist) {
		if c.cont {
			return nil, fmt.Errorf("%w in %s to continue: no session has been saved yet", store.ErrNoSession, ios.Dir)
		}
		return nil, fmt.Errorf("%w %q: no session has been saved yet", store.ErrUnknownSession, c.resume.id)
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var sess store.Session
	if c.cont {
		sess, err = st.Latest(ctx, ios.Dir)
	} else {
		sess, err = st.Session(ctx, c.resume.id)
	}
	if err != nil {
		return nil, err
	}
	if !c.cont && !sameDir(sess.Dir, ios.Dir) {
		// Its tools, worktrees and memory are that folder's: carried here,
		// the lead would work on files it has never seen.
		return nil, fmt.Errorf("session %s ran in %s, not in this folder (%s): cd %s and resume it there", sess.ID, sess.Dir, ios.Dir, sess.Dir)
	}
	if c.forkSession && sess.Backend != backend.Native {
		return nil, fmt.Errorf("--fork-session: session %s ran its lead in %s, whose conversation Atomic cannot copy; resume it without --fork-session", sess.ID, sess.Backend)
	}
	if err := resumable(sess, c.backendName(s)); err != nil {
		return nil, err
	}
	// Held before it is read: a second process resuming it is refused
	// (*store.HeldError), and the first's history is never overwritten.
	hold, err := store.HoldSession(ctx, st.Path(), sess.ID)
	if err != nil {
		return nil, err
	}
	out, err := loadSession(ctx, st, sess)
	if err != nil {
		hold.Release()
		return nil, err
	}
	out.hold = hold
	return out, nil
}

// loadSession reads session sess: its events, histories and prompts.
func loadSession(ctx context.Context, st *store.Store, sess store.Session) (*resumed, error) {
	res := &runtime.Resume{}
	err := st.Events(ctx, sess.ID, func(line []byte) error {
		var raw event.Raw
		if err := json.Unmarshal(line, &raw); err != nil {
			return fmt.Errorf("session %s: a stored event does not decode: %w", sess.ID, err)
		}
		res.Events = append(res.Events, raw.Event())
		return nil
	})
	if err != nil {
		return nil, err
	}
	if res.Subagents, err = st.Histories(ctx, sess.ID); err != nil {
		return nil, err
	}
	res.History = res.Subagents[event.LeadID]
	delete(res.Subagents, event.LeadID)
	prompts, err := st.TimedPrompts(ctx, sess.ID)
	if err != nil {
		return nil, err
	}
	return &resumed{session: sess, run: res, prompts: prompts}, nil
}

// resumable says why session sess cannot be resumed with its lead on
// backend b: its lead ran elsewhere, or in a CLI that never named the
// conversation to continue.
func resumable(sess store.Session, b string) error {
	switch {
	case sess.Backend != b && sess.Backend == backend.Native:
		return fmt.Errorf("--backend %s: session %s ran the native lead; resume it without --backend", b, sess.ID)
	case sess.Backend != b:
		return fmt.Errorf("session %s ran its lead in %s: resume it with --backend %s", sess.ID, sess.Backend, sess.Backend)
	case b == backend.Native:
		return nil
	case sess.CLISession == "":
		return fmt.Errorf("session %s ran its lead in %s, which never named its conversation (no turn started): nothing to resume", sess.ID, b)
	}
	return nil
}

// pickSession shows the picker of the sessions of this directory, newest
// first, when --resume came without an id, and sets the id picked. ok is
// false when the user left the picker without one.
func (c *common) pickSession(ctx context.Context, ios IOStreams) (ok bool, err error) {
	if !c.resume.set || c.resume.id != "" || c.cont {
		return true, nil // resumeSession says what is wrong, if anything
	}
	var items []ui.PickerSession
	st, err := openSessions(ctx, ios)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, err
	default:
		list, err := st.Sessions(ctx)
		st.Close()
		if err != nil {
			return false, err
		}
		for _, s := range list {
			if s.Dir == ios.Dir && len(items) < pickerSessions {
				items = append(items, ui.PickerSession{ID: s.ID, Title: s.Title, Status: s.Status, Started: s.Started, Agents: s.Agents})
			}
		}
	}
	if len(items) == 0 {
		return false, fmt.Errorf("%w in %s to resume (atomic sessions lists them all)", store.ErrNoSession, ios.Dir)
	}
	id, err := ui.RunPicker(ctx, ios.In, ios.Out, items)
	if err != nil || id == "" {
		return false, err
	}
	c.resume.id = id
	return true, nil
}

// pickerSessions bounds the sessions the picker lists.
const pickerSessions = 50

// sameDir reports whether a and b name one folder (a symlink to it too).
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// forkAs makes r the start of a new session id (--fork-session): its
// events carry the new id, and the original is let go at once, since
// nothing is written to it.
func (r *resumed) forkAs(id string) {
	old := r.session.ID
	for i, e := range r.run.Events {
		if e.SessionID == old {
			r.run.Events[i].SessionID = id
		} else if rest, ok := strings.CutPrefix(e.SessionID, old+"/"); ok {
			r.run.Events[i].SessionID = id + "/" + rest
		}
	}
	r.hold.Release()
	r.hold = nil
}

// seed copies the forked session into j, the new session's journal: its
// prompts, events and every agent's history, before the run adds to them.
func (r *resumed) seed(j runtime.Journal) {
	for _, p := range r.prompts {
		j.Prompt(p.Text)
	}
	for _, e := range r.run.Events {
		j.Emit(e)
	}
	j.History(event.LeadID, r.run.History)
	for id, h := range r.run.Subagents {
		j.History(id, h)
	}
}
