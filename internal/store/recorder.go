package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/redact"
)

// Meta describes the session a Recorder writes.
type Meta struct {
	ID      string
	Dir     string
	Backend string
	Model   string
	// Secrets are values that must never reach the database (API keys):
	// any occurrence in an event, prompt, title or history is replaced by
	// [redacted], as is anything shaped like a provider's key (package
	// redact).
	Secrets []string
	// Resume continues session ID, already in the store: its events and
	// prompts are appended after the stored ones, its title and agents
	// are kept, and it is running again until this run ends.
	Resume bool
	// Hold is the caller's hold on the session (HoldSession: a resume
	// takes it before loading the session, to refuse a second process at
	// once); nil, the Recorder takes it itself before it writes the
	// session's row. Either is released when the Recorder closes.
	Hold *Hold
	// OpenAtBegin defers opening the store to Begin (the run's first
	// model request) or Close; otherwise it is opened OpenDelay after
	// Record, or at Begin if that comes first.
	OpenAtBegin bool
}

// TitleRunes bounds a session's title (its first prompt, cut).
const TitleRunes = 80

// Recorder writes one session as it happens. Its methods only queue: one
// goroutine opens the store (the run does not wait for it) and writes what
// is queued a batch per transaction, so no model request or frame ever
// waits on the disk. When the store cannot be opened or written (locked,
// full, read-only, corrupt, a newer schema) warn is called once and the
// run goes on without persistence.
type Recorder struct {
	meta Meta
	warn func(error)
	red  *redact.Redactor

	mu    sync.Mutex
	queue []op
	// spare is the last batch's slice, emptied, for the queue to grow
	// into again rather than from nothing every batch.
	spare   []op
	closing bool
	failed  bool
	// queued counts the ops ever accepted and committed those in the
	// store; committedNow is closed (and replaced) whenever committed
	// grows or persistence stops, for Wait.
	queued, committed uint64
	committedNow      chan struct{}
	// waiting counts the Waits under way: the writer does not pace
	// commits that output waits on.
	waiting int

	wake chan struct{}
	done chan struct{}
	// begin is closed by Begin; leaveOpen (set before closing) has the
	// writer leave the database for the process's exit to close.
	begin     chan struct{}
	beginOnce sync.Once
	leaveOpen bool

	// Writer-goroutine state.
	st      *Store
	created bool
	seq     int64
	pseq    int64
	title   string
	status  string
	agents  map[string]bool
	buf     bytes.Buffer
	enc     *event.Encoder
	rows    eventRows
	started time.Time
	// every paces commits (pace); commits counts them, lastCommit is the
	// last one's time.
	every      time.Duration
	commits    int
	lastCommit time.Time
}

type op struct {
	ev      *event.Event
	prompt  string
	at      time.Time
	agent   string
	history []provider.Message
	// cliSession: the op sets the session's CLI conversation id.
	cliSession string
	// keep: the op only has the session's row written (Keep).
	keep bool
}

// Record starts recording session meta into the database at path. The
// store is opened in the background; everything queued meanwhile is
// written once it is open.
func Record(path string, opts Options, meta Meta, warn func(error)) *Recorder {
	hold := func() (*Hold, error) {
		if meta.Hold != nil {
			return meta.Hold, nil
		}
		return HoldSession(context.Background(), path, meta.ID)
	}
	return start(meta, warn, hold, func() (*Store, error) { return Open(context.Background(), path, opts) })
}

func start(meta Meta, warn func(error), hold func() (*Hold, error), open func() (*Store, error)) *Recorder {
	return startPaced(meta, warn, hold, open, CommitEvery)
}

func startPaced(meta Meta, warn func(error), hold func() (*Hold, error), open func() (*Store, error), every time.Duration) *Recorder {
	r := &Recorder{meta: meta, warn: warn, red: redact.New(meta.Secrets), status: StatusRunning,
		agents: map[string]bool{}, wake: make(chan struct{}, 1), done: make(chan struct{}), begin: make(chan struct{}), started: time.Now(),
		committedNow: make(chan struct{}), every: every}
	r.enc = event.NewEncoder(&r.buf)
	go r.run(hold, open)
	return r
}

// Emit queues e (a bus subscriber).
func (r *Recorder) Emit(e event.Event) { r.push(op{ev: &e}) }

// Prompt queues the user's prompt; call it before the prompt is sent, so
// it is ordered before anything it causes. The first one titles the
// session.
func (r *Recorder) Prompt(text string) { r.push(op{prompt: text, at: time.Now()}) }

// History queues agent agentID's message history, replacing the saved one.
func (r *Recorder) History(agentID string, msgs []provider.Message) {
	r.push(op{agent: agentID, history: msgs})
}

// CLISession queues the lead's conversation id in its external CLI, for a
// later resume to continue.
func (r *Recorder) CLISession(id string) { r.push(op{cliSession: id}) }

// Keep writes the session's row now, before anything happened in it, and
// returns once it is in the store (or persistence stopped): a session an
// editor created (ACP session/new) can be loaded before its first prompt.
func (r *Recorder) Keep() {
	r.push(op{keep: true})
	r.Wait(r.Mark())
}

func (r *Recorder) push(o op) {
	r.mu.Lock()
	if !r.failed && !r.closing {
		r.queue = append(r.queue, o)
		r.queued++
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Mark is a ticket for everything queued so far (every event already
// handed to Emit); Wait(Mark()) returns once all of it is in the store.
func (r *Recorder) Mark() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.queued
}

// Wait returns once everything up to mark is committed, or at once when
// persistence has stopped (failed, or the Recorder closed): output that
// must not get ahead of the store (stream-json) waits here, never forever.
// A store not yet open is opened now (Begin): output waits for it.
func (r *Recorder) Wait(mark uint64) {
	r.Begin()
	r.mu.Lock()
	r.waiting++
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.waiting--
		r.mu.Unlock()
	}()
	select { // a writer pacing its commits commits now
	case r.wake <- struct{}{}:
	default:
	}
	for {
		r.mu.Lock()
		ok, now := r.committed >= mark || r.failed, r.committedNow
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-now:
		case <-r.done:
			return
		}
	}
}

// advance records that n more ops are committed and wakes Wait.
func (r *Recorder) advance(n int) {
	r.mu.Lock()
	r.committed += uint64(n)
	close(r.committedNow)
	r.committedNow = make(chan struct{})
	r.mu.Unlock()
}

// Begin says the run has started its first model request: the store is
// opened now, on the writer's goroutine, while the request is on its way
// (Meta.OpenAtBegin). Calls after the first do nothing.
func (r *Recorder) Begin() { r.beginOnce.Do(func() { close(r.begin) }) }

// Close writes what is queued, records the session's end and stops the
// writer, then closes the database (which checkpoints its WAL into the
// file). A session still running at Close (no complete since its last
// work) ends interrupted.
func (r *Recorder) Close() { r.stop(false) }

// Exit is Close for a process that exits next: what is queued and the
// session's end are committed to the WAL in one transaction, and the
// database is left for the exit to close, without the checkpoint (and its
// two fsyncs) that closing it would do. Each commit is in the WAL, which
// the next open reads (SQLite's recovery), so a process crash, as a
// kill -9, loses nothing committed (synchronous=NORMAL: a power loss or
// an OS crash may lose the last commits). For a process that goes on
// after the session, use Close: Exit leaves the database's connection
// and its goroutine behind.
func (r *Recorder) Exit() { r.stop(true) }

func (r *Recorder) stop(leaveOpen bool) {
	r.mu.Lock()
	if !r.closing {
		r.leaveOpen = leaveOpen
	}
	r.closing = true
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
	<-r.done
}

func (r *Recorder) run(hold func() (*Hold, error), open func() (*Store, error)) {
	defer close(r.done)
	r.settle()
	// The session is held from before its row says running to after its
	// end is written: running means a live process holds it. Taking the
	// hold and opening the database are each a few files made on a first
	// run, which a one-answer run's exit waits for: they go side by side.
	var h *Hold
	held := make(chan error, 1)
	go func() {
		var err error
		h, err = hold()
		held <- err
	}()
	st, err := open()
	if herr := <-held; herr != nil {
		if err == nil {
			st.Close()
		}
		r.fail(herr)
		return
	}
	defer h.Release()
	if err != nil {
		r.fail(err)
		return
	}
	r.st = st
	// Now, while the model answers, not in the exit's commit.
	if err := st.checkpointLargeWAL(context.Background()); err != nil && r.warn != nil {
		r.warn(err)
	}
	defer func() {
		r.mu.Lock()
		leave := r.leaveOpen
		r.mu.Unlock()
		if !leave {
			st.Close()
		}
	}()
	for {
		r.pace()
		r.mu.Lock()
		batch, closing := r.queue, r.closing
		r.queue, r.spare = r.spare, nil
		r.mu.Unlock()
		if len(batch) > 0 || closing {
			// The last batch carries the session's end: one commit.
			if err := r.write(batch, closing); err != nil {
				r.fail(err)
				return
			}
			r.commits++
			r.lastCommit = time.Now()
			r.advance(len(batch))
			clear(batch) // its events and histories are free to go
			r.mu.Lock()
			r.spare = batch[:0]
			r.mu.Unlock()
			if closing {
				return
			}
			continue
		}
		<-r.wake
	}
}

// CommitEvery paces the writer: a commit comes at least this long after
// the previous one, unless output waits on it (Wait) or the Recorder
// closes. A burst of events (1,000 agents starting or ending) is then a
// few transactions, not hundreds: each costs a transaction and the pages
// it writes to the WAL again. What no output waited on may wait this long
// in memory, and a kill -9 loses it, as it lost a commit under way.
const CommitEvery = 10 * time.Millisecond

// pace holds the next commit until r.every after the last one, or until
// output waits on the store or the Recorder closes.
func (r *Recorder) pace() {
	d := r.every - time.Since(r.lastCommit)
	if d <= 0 {
		return
	}
	var timer *time.Timer
	for {
		r.mu.Lock()
		urgent := r.closing || r.waiting > 0
		r.mu.Unlock()
		if urgent {
			return
		}
		if timer == nil {
			timer = time.NewTimer(d)
			defer timer.Stop()
		}
		select {
		case <-timer.C:
			return
		case <-r.wake:
		}
	}
}

// OpenDelay is how long a Recorder lets the run start before it opens the
// store, unless Begin comes first or Meta.OpenAtBegin waits for it:
// opening costs about a millisecond of CPU, which on a small machine
// would otherwise compete with the run's start. What happens meanwhile is
// queued; Close does not wait for it.
const OpenDelay = 10 * time.Millisecond

// settle waits until the store is to be opened: Begin, Close, or
// OpenDelay unless Meta.OpenAtBegin.
func (r *Recorder) settle() {
	var timeout <-chan time.Time
	if !r.meta.OpenAtBegin {
		t := time.NewTimer(OpenDelay)
		defer t.Stop()
		timeout = t.C
	}
	for {
		select {
		case <-timeout:
			return
		case <-r.begin:
			return
		case <-r.wake:
			r.mu.Lock()
			closing := r.closing
			r.mu.Unlock()
			if closing {
				return
			}
		}
	}
}

// fail stops persistence and says so once.
func (r *Recorder) fail(err error) {
	r.mu.Lock()
	r.failed, r.queue = true, nil
	close(r.committedNow)
	r.committedNow = make(chan struct{})
	r.mu.Unlock()
	if r.warn != nil {
		r.warn(fmt.Errorf("this session is not saved: %w", err))
	}
}

// write stores one batch in one transaction; the last one (closing) also
// records the session's end.
func (r *Recorder) write(batch []op, closing bool) error {
	ctx := context.Background()
	if closing && len(batch) == 0 && !r.created {
		return nil // nothing happened: no session to keep
	}
	tx, err := r.st.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("writing the session: %w", err)
	}
	defer tx.Rollback()
	if !r.created && r.meta.Resume {
		if err := r.reopen(ctx, tx); err != nil {
			return err
		}
	} else if !r.created {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sessions(id, dir, backend, model, status, started) VALUES (?, ?, ?, ?, ?, ?)`,
			r.meta.ID, r.meta.Dir, r.meta.Backend, r.meta.Model, StatusRunning, r.started.UnixNano()); err != nil {
			return fmt.Errorf("creating the session: %w", err)
		}
	}
	ins := &r.rows
	ins.begin(tx)
	defer ins.end()
	titled := r.title
	last := lastHistories(batch)
	hist := &histories{tx: tx}
	defer hist.close()
	for i, o := range batch {
		switch {
		case o.ev != nil:
			if err := r.insertEvent(ctx, ins, *o.ev); err != nil {
				return err
			}
		case o.keep:
		case o.cliSession != "":
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET cli_session = ? WHERE id = ?`, o.cliSession, r.meta.ID); err != nil {
				return fmt.Errorf("saving the CLI's session id: %w", err)
			}
		case o.history != nil || o.agent != "":
			if last[o.agent] != i {
				continue // replaced later in this batch
			}
			if err := hist.save(ctx, r.red, r.meta.ID, o.agent, o.history); err != nil {
				return err
			}
		default:
			text := r.red.String(o.prompt)
			r.pseq++
			if _, err := tx.ExecContext(ctx, `INSERT INTO prompts(session_id, seq, time, text) VALUES (?, ?, ?, ?)`,
				r.meta.ID, r.pseq, o.at.UnixNano(), text); err != nil {
				return fmt.Errorf("writing a prompt: %w", err)
			}
			if r.title == "" {
				r.title = Title(text)
			}
			r.status = StatusRunning
		}
	}
	if err := ins.flush(ctx); err != nil {
		return err
	}
	var ended sql.NullInt64
	if closing {
		// A session still running at its end was interrupted; one never
		// prompted (kept open by an editor) ended with nothing cut off.
		switch {
		case r.status == StatusRunning && r.pseq == 0:
			r.status = StatusCompleted
		case r.status == StatusRunning:
			r.status = StatusInterrupted
		}
		ended = sql.NullInt64{Int64: time.Now().UnixNano(), Valid: true}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ?, status = ?, agents = ?, ended = ? WHERE id = ?`,
		r.title, r.status, len(r.agents), ended, r.meta.ID); err != nil {
		return fmt.Errorf("updating the session: %w", err)
	}
	if err := tx.Commit(); err != nil {
		r.title = titled
		return fmt.Errorf("writing the session: %w", err)
	}
	r.created = true
	return nil
}

// reopen makes a resumed session running again and picks up where its
// events, prompts, title and agents stopped.
func (r *Recorder) reopen(ctx context.Context, tx *sql.Tx) error {
	res, err := tx.ExecContext(ctx, `UPDATE sessions SET status = ?, ended = NULL WHERE id = ?`, StatusRunning, r.meta.ID)
	if err != nil {
		return fmt.Errorf("reopening the session: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("reopening the session: %w %q", ErrUnknownSession, r.meta.ID)
	}
	if err := tx.QueryRowContext(ctx, `SELECT title FROM sessions WHERE id = ?`, r.meta.ID).Scan(&r.title); err != nil {
		return fmt.Errorf("reopening the session: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events WHERE session_id = ?`, r.meta.ID).Scan(&r.seq); err != nil {
		return fmt.Errorf("reopening the session: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM prompts WHERE session_id = ?`, r.meta.ID).Scan(&r.pseq); err != nil {
		return fmt.Errorf("reopening the session: %w", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT agent_id FROM events WHERE session_id = ? AND agent_id NOT IN ('', 'lead')`, r.meta.ID)
	if err != nil {
		return fmt.Errorf("reopening the session: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return fmt.Errorf("reopening the session: %w", err)
		}
		r.agents[id] = true
	}
	return rows.Err()
}

func (r *Recorder) insertEvent(ctx context.Context, ins *eventRows, e event.Event) error {
	r.buf.Reset()
	if err := r.enc.Encode(e); err == nil {
		err = r.enc.Flush()
	}
	body := r.red.Bytes(bytes.TrimSuffix(r.buf.Bytes(), []byte("\n")))
	r.seq++
	if err := ins.add(ctx, r.meta.ID, r.seq, string(e.Type), e.AgentID, body); err != nil {
		return err
	}
	r.track(e)
	return nil
}

// lastHistories is the index of each agent's last history in batch: a
// history replaces the saved one, so only the last of a batch is written.
func lastHistories(batch []op) map[string]int {
	var last map[string]int
	for i, o := range batch {
		if o.ev == nil && (o.history != nil || o.agent != "") {
			if last == nil {
				last = map[string]int{}
			}
			last[o.agent] = i
		}
	}
	return last
}

// track follows the session's status and agents from its events: a
// prompt starts work (running), an interrupt ends it interrupted, the
// lead's complete ends it completed or error.
func (r *Recorder) track(e event.Event) {
	if e.AgentID != "" && e.AgentID != event.LeadID {
		r.agents[e.AgentID] = true
	}
	switch {
	case e.Type == event.Interrupt:
		r.status = StatusInterrupted
	case e.Type == event.Complete && e.ParentAgentID == "" && r.status != StatusInterrupted:
		r.status = StatusCompleted
		if d, ok := event.Payload[event.CompleteData](e.Data); ok && d.IsError {
			r.status = StatusError
		}
	}
}

// Title is a session's title from its first prompt: one line, cut.
func Title(prompt string) string {
	t := strings.Join(strings.Fields(prompt), " ")
	if utf8.RuneCountInString(t) <= TitleRunes {
		return t
	}
	rs := []rune(t)
	return strings.TrimSpace(string(rs[:TitleRunes-1])) + "…"
}

// histories saves a transaction's histories through one statement,
// prepared at the first: a fan-out saves one per agent, and preparing the
// upsert anew (SQLite parsing it) was half of what saving one cost.
type histories struct {
	tx *sql.Tx
	st *sql.Stmt
}

func (h *histories) save(ctx context.Context, red *redact.Redactor, sessionID, agentID string, msgs []provider.Message) error {
	b, err := historyJSON(red, agentID, msgs)
	if err != nil {
		return err
	}
	if h.st == nil {
		if h.st, err = h.tx.PrepareContext(ctx, upsertHistory); err != nil {
			return fmt.Errorf("saving the history of %s: %w", agentID, err)
		}
	}
	if _, err := h.st.ExecContext(ctx, sessionID, agentID, time.Now().UnixNano(), b); err != nil {
		return fmt.Errorf("saving the history of %s: %w", agentID, err)
	}
	return nil
}

func (h *histories) close() {
	if h.st != nil {
		h.st.Close()
	}
}
