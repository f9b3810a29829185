package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
)

// rowsPerInsert is how many events one INSERT writes. A statement per
// event was most of what the store cost per event: each is bound,
// stepped and reset through database/sql and the driver on its own.
const rowsPerInsert = 64

// insertSQL[n] inserts n events (built once, when first needed).
var insertSQL = sync.OnceValue(func() []string {
	out := make([]string, rowsPerInsert+1)
	var b strings.Builder
	b.WriteString(`INSERT INTO events(session_id, seq, type, agent_id, body) VALUES `)
	for n := 1; n <= rowsPerInsert; n++ {
		if n > 1 {
			b.WriteByte(',')
		}
		b.WriteString("(?, ?, ?, ?, ?)")
		out[n] = b.String()
	}
	return out
})

// eventRows gathers a transaction's events and inserts them
// rowsPerInsert at a time. Its buffers are kept for the next transaction:
// the driver copies what it binds.
type eventRows struct {
	tx    *sql.Tx
	full  *sql.Stmt // the statement of rowsPerInsert rows, prepared once per transaction
	args  []any
	arena []byte // the rows' bodies
}

// begin starts gathering the events of tx.
func (w *eventRows) begin(tx *sql.Tx) { w.tx, w.full = tx, nil }

func (w *eventRows) add(ctx context.Context, session string, seq int64, typ, agent string, body []byte) error {
	start := len(w.arena)
	w.arena = append(w.arena, body...)
	w.args = append(w.args, session, seq, typ, agent, w.arena[start:len(w.arena):len(w.arena)])
	if len(w.args) == 5*rowsPerInsert {
		return w.flush(ctx)
	}
	return nil
}

// flush inserts what is gathered.
func (w *eventRows) flush(ctx context.Context) error {
	n := len(w.args) / 5
	if n == 0 {
		return nil
	}
	var err error
	if n == rowsPerInsert {
		if w.full == nil {
			if w.full, err = w.tx.PrepareContext(ctx, insertSQL()[n]); err != nil {
				return fmt.Errorf("writing events: %w", err)
			}
		}
		_, err = w.full.ExecContext(ctx, w.args...)
	} else {
		_, err = w.tx.ExecContext(ctx, insertSQL()[n], w.args...)
	}
	if err != nil {
		return fmt.Errorf("writing events: %w", err)
	}
	clear(w.args)
	w.args, w.arena = w.args[:0], w.arena[:0]
	return nil
}

// end is the transaction's end: nothing gathered is kept.
func (w *eventRows) end() {
	if w.full != nil {
		w.full.Close()
	}
	clear(w.args)
	w.tx, w.full, w.args, w.arena = nil, nil, w.args[:0], w.arena[:0]
}
