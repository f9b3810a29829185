// Package store keeps Atomic's sessions on disk: one SQLite database per
// user (pure Go, WAL mode) holding each session's row, every §1 event in
// the order the bus delivered it (the same JSON lines stream-json prints),
// the user's prompts and each agent's message history. Store is the
// synchronous handle (atomic sessions reads with it); Recorder writes a
// running session off the hot path.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/redact"
)

// FileName is the database's name in the state directory.
const FileName = "atomic.db"

// DefaultBusyTimeout is how long a write waits for another process's.
const DefaultBusyTimeout = 5 * time.Second

// Dir is Atomic's state directory: $XDG_STATE_HOME/atomic, else
// ~/.local/state/atomic.
func Dir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "atomic"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "atomic"), nil
	}
	return "", errors.New("neither XDG_STATE_HOME nor HOME is set: no place for the session store")
}

// Path is the database file in Dir.
func Path(getenv func(string) string) (string, error) {
	d, err := Dir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, FileName), nil
}

// Options tune Open.
type Options struct {
	// BusyTimeout bounds the wait for another process's write (0:
	// DefaultBusyTimeout).
	BusyTimeout time.Duration
	// MaxPages caps the database's size in pages (0: no cap); past it
	// SQLite answers "database or disk is full", as on a full disk.
	MaxPages int
	// CheckpointAbove is the WAL size past which a Recorder's open copies
	// the WAL into the database (0: DefaultCheckpointAbove).
	CheckpointAbove int64
}

// DefaultCheckpointAbove: a one-answer run adds ~50 KB to the WAL, and
// every open reads the WAL whole (0.7 ms empty, 1.5 ms at 2 MB).
const DefaultCheckpointAbove = 512 << 10

// Store is an open database.
type Store struct {
	db              *sql.DB
	path            string
	checkpointAbove int64
}

// Open opens (creating it and its directory if need be) the database at
// path and brings its schema up to date. A schema newer than this Atomic
// knows is refused (ErrNewerSchema) and left as it is.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	// Sessions hold code and conversations: the file is the user's alone
	// (SQLite gives its -wal and -shm files the same mode).
	fresh := false
	if f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600); err == nil {
		fi, err := f.Stat()
		fresh = err == nil && fi.Size() == 0
		f.Close()
	}
	dsn := "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path) +
		// journal_size_limit(0): the first commit after a checkpoint
		// truncates the WAL to what it wrote, so the file's size is what
		// the next open reads.
		fmt.Sprintf("?_txlock=immediate&_pragma=busy_timeout(%d)&_pragma=synchronous(NORMAL)&_pragma=journal_size_limit(0)",
			opts.BusyTimeout.Milliseconds())
	if opts.MaxPages > 0 {
		dsn += fmt.Sprintf("&_pragma=max_page_count(%d)", opts.MaxPages)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("session store %s: %w", path, err)
	}
	// One connection: one writer per process, and a pragma set once holds.
	db.SetMaxOpenConns(1)
	if opts.CheckpointAbove <= 0 {
		opts.CheckpointAbove = DefaultCheckpointAbove
	}
	s := &Store{db: db, path: path, checkpointAbove: opts.CheckpointAbove}
	if err := s.migrate(ctx, fresh); err != nil {
		db.Close()
		return nil, fmt.Errorf("session store %s: %w", path, err)
	}
	return s, nil
}

// checkpointLargeWAL copies a WAL past s.checkpointAbove into the
// database. A process that exits through Recorder.Exit leaves its WAL,
// which every later open reads whole, and SQLite's own checkpoint comes
// only at 1,000 pages, in whichever commit passes them (the exit's, as
// often as not). PASSIVE: it waits for no other process; what a reader
// still holds is copied by a later one.
func (s *Store) checkpointLargeWAL(ctx context.Context) error {
	fi, err := os.Stat(s.path + "-wal")
	if err != nil || fi.Size() <= s.checkpointAbove {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
		return fmt.Errorf("checkpointing the session store's WAL: %w", err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Session is one session's row.
type Session struct {
	ID      string    `json:"id"`
	Dir     string    `json:"directory"`
	Title   string    `json:"title"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
	// Agents counts the sub-agents and teammates the session ran.
	Agents  int    `json:"agents"`
	Status  string `json:"status"`
	Backend string `json:"backend"`
	Model   string `json:"model"`
	// CLISession is the lead's conversation id in its external CLI, empty
	// for the native lead or before the CLI named it.
	CLISession string `json:"-"`
}

// Statuses of a session. A session recorded running whose lock no live
// process holds (its run crashed or was killed) reads as interrupted.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusError       = "error"
	StatusInterrupted = "interrupted"
)

// liveStatus is x's status as it stands: running only while a live
// process holds the session (HoldSession); a run that crashed or was
// killed left it running in the database, and it is interrupted.
func (s *Store) liveStatus(x Session) string {
	if x.Status == StatusRunning && !Held(s.path, x.ID) {
		return StatusInterrupted
	}
	return x.Status
}

// ErrUnknownSession is returned for an id the store does not hold.
var ErrUnknownSession = errors.New("no such session")

// Sessions lists every session, newest first.
func (s *Store) Sessions(ctx context.Context) ([]Session, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, dir, title, started, ended, agents, status, backend, model
		FROM sessions ORDER BY started DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("listing sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var x Session
		var started int64
		var ended sql.NullInt64
		if err := rows.Scan(&x.ID, &x.Dir, &x.Title, &started, &ended, &x.Agents, &x.Status, &x.Backend, &x.Model); err != nil {
			return nil, fmt.Errorf("listing sessions: %w", err)
		}
		x.Started = time.Unix(0, started)
		if ended.Valid {
			x.Ended = time.Unix(0, ended.Int64)
		}
		x.Status = s.liveStatus(x)
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing sessions: %w", err)
	}
	return out, nil
}

// Latest returns the newest session started in directory dir.
func (s *Store) Latest(ctx context.Context, dir string) (Session, error) {
	var id string
	err := s.db.QueryRowContext(ctx, `SELECT id FROM sessions WHERE dir = ? ORDER BY started DESC, id DESC LIMIT 1`, dir).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("%w in %s to continue (atomic sessions lists them)", ErrNoSession, dir)
	}
	if err != nil {
		return Session{}, fmt.Errorf("finding the last session in %s: %w", dir, err)
	}
	return s.Session(ctx, id)
}

// ErrNoSession is returned by Latest for a directory without sessions.
var ErrNoSession = errors.New("no session")

// Session returns session id's row.
func (s *Store) Session(ctx context.Context, id string) (Session, error) {
	x := Session{ID: id}
	var started int64
	var ended sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT dir, title, started, ended, agents, status, backend, model, cli_session FROM sessions WHERE id = ?`, id).
		Scan(&x.Dir, &x.Title, &started, &ended, &x.Agents, &x.Status, &x.Backend, &x.Model, &x.CLISession)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("%w %q (atomic sessions lists them)", ErrUnknownSession, id)
	}
	if err != nil {
		return Session{}, fmt.Errorf("reading session %s: %w", id, err)
	}
	x.Started = time.Unix(0, started)
	if ended.Valid {
		x.Ended = time.Unix(0, ended.Int64)
	}
	x.Status = s.liveStatus(x)
	return x, nil
}

// Events calls fn with each event of session id, in order, as the JSON
// line stream-json printed (without its newline).
func (s *Store) Events(ctx context.Context, id string, fn func(line []byte) error) error {
	if _, err := s.Session(ctx, id); err != nil {
		return err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT body FROM events WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return fmt.Errorf("reading the events of %s: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return fmt.Errorf("reading the events of %s: %w", id, err)
		}
		if err := fn(body); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Prompts returns the user's prompts to session id, in order.
func (s *Store) Prompts(ctx context.Context, id string) ([]string, error) {
	ps, err := s.TimedPrompts(ctx, id)
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Text
	}
	return out, err
}

// Prompt is one of the user's prompts and when it was sent.
type Prompt struct {
	Text string
	Time time.Time
}

// TimedPrompts returns the user's prompts to session id with their
// times, in order: a resumed chat places them among the events.
func (s *Store) TimedPrompts(ctx context.Context, id string) ([]Prompt, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT text, time FROM prompts WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("reading the prompts of %s: %w", id, err)
	}
	defer rows.Close()
	var out []Prompt
	for rows.Next() {
		var p Prompt
		var at int64
		if err := rows.Scan(&p.Text, &at); err != nil {
			return nil, fmt.Errorf("reading the prompts of %s: %w", id, err)
		}
		p.Time = time.Unix(0, at)
		out = append(out, p)
	}
	return out, rows.Err()
}

// Remove deletes session id and everything recorded for it. A session
// another process holds is refused (*HeldError).
func (s *Store) Remove(ctx context.Context, id string) error {
	hold, err := HoldSession(ctx, s.path, id)
	if err != nil {
		return err
	}
	defer hold.Release()
	// The lock file goes too, while held: a run that opens it later finds
	// the session gone.
	defer os.Remove(filepath.Join(LocksDir(s.path), id+".lock"))
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("removing %s: %w", id, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("removing %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w %q (atomic sessions lists them)", ErrUnknownSession, id)
	}
	for _, q := range []string{`DELETE FROM events WHERE session_id = ?`, `DELETE FROM prompts WHERE session_id = ?`,
		`DELETE FROM histories WHERE session_id = ?`} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return fmt.Errorf("removing %s: %w", id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("removing %s: %w", id, err)
	}
	if err := os.RemoveAll(CLIHome(s.path, id)); err != nil {
		return fmt.Errorf("removing %s's CLI home: %w", id, err)
	}
	return nil
}

// CLIHome is the home kept for session id's external CLI lead (the CODEX_HOME
// Atomic makes, where the CLI's conversation lives), next to the store's
// file path; removing the session removes it.
func CLIHome(path, id string) string {
	return filepath.Join(filepath.Dir(path), "cli-homes", id)
}

// SaveHistory stores agent agentID's message history in session
// sessionID, replacing what was saved before: what its provider needs to
// continue the conversation. Key-shaped text is masked (package redact).
func (s *Store) SaveHistory(ctx context.Context, sessionID, agentID string, msgs []provider.Message) error {
	return saveHistory(ctx, s.db, nil, sessionID, agentID, msgs, time.Now())
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// upsertHistory saves an agent's history in place of the one saved.
const upsertHistory = `INSERT INTO histories(session_id, agent_id, updated, messages) VALUES (?, ?, ?, ?)
		ON CONFLICT(session_id, agent_id) DO UPDATE SET updated = excluded.updated, messages = excluded.messages`

// saveHistory stores msgs as JSON with red's secrets masked: a key the
// user typed or a tool printed is in the history as in the events.
func saveHistory(ctx context.Context, db execer, red *redact.Redactor, sessionID, agentID string, msgs []provider.Message, now time.Time) error {
	b, err := historyJSON(red, agentID, msgs)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, upsertHistory, sessionID, agentID, now.UnixNano(), b); err != nil {
		return fmt.Errorf("saving the history of %s: %w", agentID, err)
	}
	return nil
}

// historyJSON is msgs as saved: JSON with red's secrets masked.
func historyJSON(red *redact.Redactor, agentID string, msgs []provider.Message) ([]byte, error) {
	b, err := json.Marshal(msgs)
	if err != nil {
		return nil, fmt.Errorf("encoding the history of %s: %w", agentID, err)
	}
	return red.Bytes(b), nil
}

// LoadHistory returns agent agentID's saved history in session sessionID;
// ok is false when none was saved.
func (s *Store) LoadHistory(ctx context.Context, sessionID, agentID string) (msgs []provider.Message, ok bool, err error) {
	var b []byte
	err = s.db.QueryRowContext(ctx, `SELECT messages FROM histories WHERE session_id = ? AND agent_id = ?`,
		sessionID, agentID).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("loading the history of %s: %w", agentID, err)
	}
	if err := json.Unmarshal(b, &msgs); err != nil {
		return nil, false, fmt.Errorf("decoding the history of %s: %w", agentID, err)
	}
	return msgs, true, nil
}

// Histories returns every saved history of session sessionID, by agent.
func (s *Store) Histories(ctx context.Context, sessionID string) (map[string][]provider.Message, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT agent_id, messages FROM histories WHERE session_id = ?`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("loading the histories of %s: %w", sessionID, err)
	}
	defer rows.Close()
	out := map[string][]provider.Message{}
	for rows.Next() {
		var id string
		var b []byte
		var msgs []provider.Message
		if err := rows.Scan(&id, &b); err != nil {
			return nil, fmt.Errorf("loading the histories of %s: %w", sessionID, err)
		}
		if err := json.Unmarshal(b, &msgs); err != nil {
			return nil, fmt.Errorf("decoding the history of %s: %w", id, err)
		}
		out[id] = msgs
	}
	return out, rows.Err()
}
