package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"text/tabwriter"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/observe"
	"github.com/atomic-agent/atomic/internal/stats"
	"github.com/atomic-agent/atomic/internal/store"
)

const statsSynopsis = `Usage: atomic stats [--since D] [--json]

Prints, per agent type and backend, how many agents were spawned, how many
failed, how many were interrupted or cancelled, their duration (p50, p95),
tool uses, tokens and cost. A resumed session's runs count a lead each.
`

// statsSource is where atomic stats reads agents from: the session
// store, each session's recorded events; with no store yet (nothing was
// ever saved, or persistence is off), the lifecycle log in the state
// directory; and that log, with a warning, when the store cannot be read.
func statsSource(ios IOStreams) (stats.Source, error) {
	path, err := store.Path(ios.Getenv)
	if err != nil {
		return nil, err
	}
	logPath, err := observe.LogPath(ios.Getenv)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return stats.FromLog(logPath), nil
	}
	return stats.Fallback(storeSource(path), stats.FromLog(logPath), "the session store "+path), nil
}

// storeSource reads the sessions of the store at path.
func storeSource(path string) stats.Source {
	return stats.FromSessions(func(ctx context.Context, since time.Time, yield func([]event.Event) error) error {
		st, err := store.Open(ctx, path, store.Options{})
		if err != nil {
			return err
		}
		defer st.Close()
		list, err := st.Sessions(ctx)
		if err != nil {
			return err
		}
		for _, s := range list {
			if s.Started.Before(since) {
				continue
			}
			var evs []event.Event
			err := st.Events(ctx, s.ID, func(line []byte) error {
				var r event.Raw
				if err := json.Unmarshal(line, &r); err != nil {
					return fmt.Errorf("session %s: %w", s.ID, err)
				}
				evs = append(evs, r.Event())
				return nil
			})
			if err != nil {
				return err
			}
			if err := yield(evs); err != nil {
				return err
			}
		}
		return nil
	})
}

func runStats(ctx context.Context, args []string, ios IOStreams) int {
	fs := flag.NewFlagSet("atomic stats", flag.ContinueOnError)
	since := fs.String("since", "", "only agents started since: a duration (24h, 7d), a date or an RFC 3339 time")
	asJSON := fs.Bool("json", false, "print a JSON array of rows")
	if code, ok := parseFlags(fs, args, ios, statsSynopsis); !ok {
		return code
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(ios.Err, "atomic: %v\n", err)
		return code
	}
	if fs.NArg() > 0 {
		return fail(2, fmt.Errorf("stats: unexpected arguments %q", fs.Args()))
	}
	from, err := stats.ParseSince(*since, time.Now())
	if err != nil {
		return fail(2, err)
	}
	src, err := statsSource(ios)
	if err != nil {
		return fail(1, err)
	}
	spans, warnings, err := src(ctx, from)
	if err != nil {
		return fail(1, err)
	}
	for _, w := range warnings {
		fmt.Fprintf(ios.Err, "atomic: warning: %s\n", w)
	}
	rows := stats.Aggregate(spans)
	if *asJSON {
		enc := json.NewEncoder(ios.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return fail(1, err)
		}
		return 0
	}
	if err := printStats(ios.Out, rows); err != nil {
		return fail(1, err)
	}
	return 0
}

func printStats(w io.Writer, rows []stats.Row) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "No agents recorded yet.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "type\tbackend\tspawned\terrors\tinterrupted\tp50\tp95\ttool uses\ttokens\tcache read\tcache write\tcost (USD)\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%.4f\t\n", r.Type, r.Backend, r.Spawns, r.Errors, r.Interrupted,
			r.P50.Round(time.Millisecond), r.P95.Round(time.Millisecond), r.ToolUses, r.Tokens, r.CacheReadTokens, r.CacheWriteTokens, r.CostUSD)
	}
	return tw.Flush()
}
