package testkit

import (
	"database/sql"
	"testing"
)

// EachCell calls fn with every cell of every table of the SQLite
// database at path, opened read-only (the caller registers the driver,
// modernc.org/sqlite), and returns the rows seen per table. Tests that
// must show a value reached no column use it.
func EachCell(t testing.TB, path string, fn func(table, column string, value []byte)) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	seen := map[string]int{}
	for _, table := range tables {
		seen[table] = 0
		rows, err := db.Query(`SELECT * FROM "` + table + `"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.RawBytes, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			seen[table]++
			for i, v := range vals {
				fn(table, cols[i], v)
			}
		}
		rows.Close()
	}
	return seen
}
