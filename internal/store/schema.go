package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// migrations bring the schema from version i to i+1; the schema's version
// is SQLite's user_version. Append only: a released step never changes.
var migrations = []string{
	`CREATE TABLE sessions (
		id TEXT PRIMARY KEY,
		dir TEXT NOT NULL,
		backend TEXT NOT NULL,
		model TEXT NOT NULL,
		title TEXT NOT NULL DEFAULT '',
		status TEXT NOT NULL,
		started INTEGER NOT NULL,
		ended INTEGER,
		agents INTEGER NOT NULL DEFAULT 0
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
	) WITHOUT ROWID;`,
	// The id an external CLI lead's own conversation has in that CLI
	// (Claude Code's session id), which resuming the session continues.
	`ALTER TABLE sessions ADD COLUMN cli_session TEXT NOT NULL DEFAULT '';`,
}

// SchemaVersion is the schema version this Atomic writes.
func SchemaVersion() int { return len(migrations) }

// ErrNewerSchema is returned for a database a newer Atomic wrote.
var ErrNewerSchema = errors.New("schema newer than this Atomic knows")

// migrate applies the missing migrations in one write transaction, so two
// processes opening a new store at once migrate it once.
//
// A fresh store (an empty file) is created unsynced: switching it to WAL
// and writing its schema would otherwise cost four fsyncs (10 to 15 ms on
// a VM's disk) that the first run's exit waits for. It holds nothing yet;
// a process crash loses nothing written (the OS has it), and an OS crash
// before the OS wrote it back can only lose the schema's WAL frames
// (checksummed: the next open creates the schema again) or, if the one
// page of the database file was torn, leave a store to delete. Every
// commit after the schema is synchronous=NORMAL, as the DSN sets.
func (s *Store) migrate(ctx context.Context, fresh bool) error {
	if !fresh {
		return s.migrateSchema(ctx)
	}
	if _, err := s.db.ExecContext(ctx, `PRAGMA synchronous = OFF`); err != nil {
		return fmt.Errorf("creating the store: %w", err)
	}
	if err := s.migrateSchema(ctx); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return fmt.Errorf("creating the store: %w", err)
	}
	return nil
}

func (s *Store) migrateSchema(ctx context.Context) error {
	v, err := s.version(ctx)
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return newerSchema(v)
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
	if v == len(migrations) {
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
	if v > len(migrations) {
		return newerSchema(v)
	}
	for i := v; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migrating the schema to version %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, len(migrations))); err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	return nil
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
		ErrNewerSchema, v, len(migrations))
}
