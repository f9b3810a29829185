package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// schema is the current schema, which a new store is created with in one
// step (no upgrade replayed). It must equal what upgrades make of a
// version-1 store (TestANewStoreAndAnUpgradedOneHaveTheSameSchema).
// sessions.cli_session is the id an external CLI lead's own conversation
// has in that CLI (Claude Code's session id), which a resume continues.
// No SQL comments: SQLite keeps the text and parses it at every open.
const schema = `CREATE TABLE sessions (
		id TEXT PRIMARY KEY,
		dir TEXT NOT NULL,
		backend TEXT NOT NULL,
		model TEXT NOT NULL,
		title TEXT NOT NULL DEFAULT '',
		status TEXT NOT NULL,
		started INTEGER NOT NULL,
		ended INTEGER,
		agents INTEGER NOT NULL DEFAULT 0,
		cli_session TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX sessions_dir_started ON sessions(dir, started);
	CREATE TABLE events (
		session_id TEXT NOT NULL,
		seq INTEGER NOT NULL,
		type TEXT NOT NULL,
		agent_id TEXT NOT NULL,
		body BLOB NOT NULL,
		PRIMARY KEY (session_id, seq)
	) WITHOUT ROWID;
	CREATE TABLE prompts (
		session_id TEXT NOT NULL,
		seq INTEGER NOT NULL,
		time INTEGER NOT NULL,
		text TEXT NOT NULL,
		PRIMARY KEY (session_id, seq)
	) WITHOUT ROWID;
	CREATE TABLE histories (
		session_id TEXT NOT NULL,
		agent_id TEXT NOT NULL,
		updated INTEGER NOT NULL,
		messages BLOB NOT NULL,
		PRIMARY KEY (session_id, agent_id)
	) WITHOUT ROWID;`

// upgrades bring a store an older Atomic wrote from version i+1 to i+2;
// the schema's version is SQLite's user_version (version 1 was the first
// release's schema). Append only: a released step never changes, and
// schema changes with each.
var upgrades = []string{
	// 1 → 2: the lead's conversation id in its external CLI.
	`ALTER TABLE sessions ADD COLUMN cli_session TEXT NOT NULL DEFAULT '';`,
}

// SchemaVersion is the schema version this Atomic writes.
func SchemaVersion() int { return len(upgrades) + 1 }

// ErrNewerSchema is returned for a database a newer Atomic wrote.
var ErrNewerSchema = errors.New("schema newer than this Atomic knows")

// migrate creates or upgrades the schema in one write transaction, so two
// processes opening a new store at once create it once.
//
// A fresh store (an empty file) is created unsynced and, by journalOff,
// without a rollback journal: switching it to WAL and writing its schema
// would otherwise cost four fsyncs (10 to 15 ms on a VM's disk) that the
// first run's exit waits for. It holds nothing yet; a process crash loses
// nothing written (the OS has it), and an OS crash before the OS wrote it back can only lose the
// schema's WAL frames (checksummed: the next open creates the schema
// again) or, if the one page of the database file was torn, leave a store
// to delete. Every commit after the schema is synchronous=NORMAL, as the
// DSN sets.
func (s *Store) migrate(ctx context.Context, fresh bool) error {
	if !fresh {
		return s.migrateSchema(ctx, false)
	}
	if _, err := s.db.ExecContext(ctx, `PRAGMA synchronous = OFF`); err != nil {
		return fmt.Errorf("creating the store: %w", err)
	}
	if err := s.migrateSchema(ctx, true); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return fmt.Errorf("creating the store: %w", err)
	}
	return nil
}

func (s *Store) migrateSchema(ctx context.Context, fresh bool) error {
	v, err := s.version(ctx)
	if err != nil {
		return err
	}
	if v > SchemaVersion() {
		return newerSchema(v)
	}
	if fresh {
		s.journalOff(ctx)
	}
	// WAL (set after the version check: it rewrites the file's header) lets
	// readers go on while one process writes.
	// Switching to WAL needs the file alone and SQLite does not wait for
	// it (busy_timeout does not apply): a second process opening a new
	// store at the same moment retries until the first has switched it.
	for deadline := time.Now().Add(DefaultBusyTimeout); ; time.Sleep(5 * time.Millisecond) {
		_, err := s.db.ExecContext(ctx, `PRAGMA journal_mode = WAL`)
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "SQLITE_BUSY") || time.Now().After(deadline) {
			return fmt.Errorf("setting WAL mode: %w", err)
		}
	}
	if v == SchemaVersion() {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
	if err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	switch {
	case v > SchemaVersion():
		return newerSchema(v)
	case v == SchemaVersion():
		return nil // another process got there first
	case v == 0: // a new store: the current schema at once
		if _, err := tx.ExecContext(ctx, schema); err != nil {
			return fmt.Errorf("creating the schema: %w", err)
		}
	default:
		for i := v - 1; i < len(upgrades); i++ {
			if _, err := tx.ExecContext(ctx, upgrades[i]); err != nil {
				return fmt.Errorf("migrating the schema to version %d: %w", i+2, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, SchemaVersion())); err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	return nil
}

// journalOff has a new store's switch to WAL write the file's header
// without a rollback journal (SQLite switches from OFF directly), rather
// than make the journal file and delete it. Not when the file already is
// in WAL mode: another process created it meanwhile (the version read
// just now saw its header), and leaving WAL would need it alone. A
// failure leaves the journal on: the switch costs a file more.
func (s *Store) journalOff(ctx context.Context) {
	var mode string
	if err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode == "wal" {
		return
	}
	_, _ = s.db.ExecContext(ctx, `PRAGMA journal_mode = OFF`)
}

func (s *Store) version(ctx context.Context) (int, error) {
	var v int
	if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("reading the schema version: %w", err)
	}
	return v, nil
}

func newerSchema(v int) error {
	return fmt.Errorf("%w: version %d, this Atomic knows up to %d; use a newer Atomic (the store is left as it is)",
		ErrNewerSchema, v, SchemaVersion())
}
