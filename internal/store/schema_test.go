package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// schemaV1 is the schema the first release created (user_version 1), as
// it is in stores on users' disks: what upgrades start from.
const schemaV1 = `CREATE TABLE sessions (
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
	) WITHOUT ROWID;`

// writeV1Store makes path a version-1 store, as the first release left it.
func writeV1Store(t *testing.T, path string) *sql.DB {
	t.Helper()
	raw := rawDB(t, path)
	if _, err := raw.Exec(schemaV1 + `; PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	return raw
}

// describe is every table's and index's shape in db: columns with their
// type, NOT NULL, default and key position, index columns, WITHOUT ROWID.
func describe(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT type, name, tbl_name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	type object struct{ kind, name, table string }
	var objects []object
	for rows.Next() {
		var o object
		if err := rows.Scan(&o.kind, &o.name, &o.table); err != nil {
			t.Fatal(err)
		}
		objects = append(objects, o)
	}
	rows.Close()
	var out []string
	for _, o := range objects {
		q := `SELECT name, type, "notnull", COALESCE(dflt_value, 'NULL'), pk FROM pragma_table_xinfo(?)`
		if o.kind == "index" {
			q = `SELECT COALESCE(name, ''), '', 0, '', seqno FROM pragma_index_xinfo(?) WHERE key`
		}
		cols, err := db.Query(q, o.name)
		if err != nil {
			t.Fatal(err)
		}
		for cols.Next() {
			var name, typ, dflt string
			var notNull, pk int
			if err := cols.Scan(&name, &typ, &notNull, &dflt, &pk); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %s on %s: %s %s notnull=%d default=%s key=%d", o.kind, o.name, o.table, name, typ, notNull, dflt, pk))
		}
		cols.Close()
	}
	// WITHOUT ROWID tables have a primary-key index of their own.
	for _, o := range objects {
		if o.kind != "table" {
			continue
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM pragma_index_list(?) WHERE origin = 'pk'`, o.name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("table %s: %d primary-key index", o.name, n))
	}
	slices.Sort(out)
	return out
}

func TestANewStoreAndAnUpgradedOneHaveTheSameSchema(t *testing.T) {
	fresh, err := Open(context.Background(), dbPath(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	oldPath := dbPath(t)
	writeV1Store(t, oldPath).Close()
	upgraded, err := Open(context.Background(), oldPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer upgraded.Close()
	want, got := describe(t, upgraded.db), describe(t, fresh.db)
	if len(want) < 20 {
		t.Fatalf("the upgraded store describes as %d lines; want every column of 4 tables and the index:\n%v", len(want), want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("a new store's schema differs from an upgraded store's (-upgraded +new):\n%s", diff)
	}
}
