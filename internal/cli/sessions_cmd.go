package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"text/tabwriter"

	"github.com/atomic-agent/atomic/internal/redact"
	"github.com/atomic-agent/atomic/internal/store"
)

const sessionsUsage = `Usage:
  atomic sessions [--json]     list the saved sessions, newest first
  atomic sessions export ID    print a session's events as JSON lines (as stream-json printed them)
  atomic sessions rm ID        delete a session

Sessions are saved in $XDG_STATE_HOME/atomic/atomic.db (default ~/.local/state/atomic/).
`

// runSessions lists, exports and removes saved sessions.
func runSessions(ctx context.Context, args []string, ios IOStreams) int {
	fail := func(err error) int {
		fmt.Fprintf(ios.Err, "atomic sessions: %v\n", err)
		return 1
	}
	if len(args) > 0 && (args[0] == "export" || args[0] == "rm") {
		if len(args) != 2 || args[1] == "" {
			fmt.Fprintf(ios.Err, "atomic sessions %s: want one session id\n\n%s", args[0], sessionsUsage)
			return 2
		}
		st, err := openSessions(ctx, ios)
		if errors.Is(err, fs.ErrNotExist) {
			return fail(fmt.Errorf("%w %q: no session has been saved yet", store.ErrUnknownSession, args[1]))
		}
		if err != nil {
			return fail(err)
		}
		defer st.Close()
		if args[0] == "rm" {
			err = st.Remove(ctx, args[1])
		} else {
			err = exportSession(ctx, st, args[1], ios, redact.New(envSecrets()))
		}
		if err != nil {
			return fail(err)
		}
		return 0
	}
	flags := flag.NewFlagSet("atomic sessions", flag.ContinueOnError)
	asJSON := flags.Bool("json", false, "print a JSON array of objects (id, directory, title, started, agents, status, …)")
	if code, ok := parseFlags(flags, args, ios, sessionsUsage); !ok {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(ios.Err, "atomic sessions: unknown command %q\n\n%s", flags.Arg(0), sessionsUsage)
		return 2
	}
	var list []store.Session
	st, err := openSessions(ctx, ios)
	switch {
	case errors.Is(err, fs.ErrNotExist): // nothing saved yet: an empty list
	case err != nil:
		return fail(err)
	default:
		defer st.Close()
		if list, err = st.Sessions(ctx); err != nil {
			return fail(err)
		}
	}
	// Titles are masked as the store masks them now: a session an older
	// Atomic saved may hold a key in its first prompt.
	red := redact.New(envSecrets())
	for i := range list {
		list[i].Title = red.String(list[i].Title)
	}
	if *asJSON {
		if list == nil {
			list = []store.Session{}
		}
		enc := json.NewEncoder(ios.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return fail(err)
		}
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintln(ios.Out, "No saved sessions.")
		return 0
	}
	tw := tabwriter.NewWriter(ios.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tDIRECTORY\tTITLE\tSTARTED\tAGENTS\tSTATUS")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", s.ID, s.Dir, s.Title, s.Started.Local().Format("2006-01-02 15:04"), s.Agents, s.Status)
	}
	if err := tw.Flush(); err != nil {
		return fail(err)
	}
	return 0
}

// openSessions opens the store for reading; fs.ErrNotExist when no
// session was ever saved (it is not created for a read).
func openSessions(ctx context.Context, ios IOStreams) (*store.Store, error) {
	path, err := store.Path(ios.Getenv)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return store.Open(ctx, path, store.Options{})
}

// exportSession prints session id's events with red's secrets masked:
// the store masks what it writes, but a session an older Atomic saved may
// hold a key.
func exportSession(ctx context.Context, st *store.Store, id string, ios IOStreams, red *redact.Redactor) error {
	w := bufio.NewWriterSize(ios.Out, 64<<10)
	err := st.Export(ctx, id, func(line []byte) error {
		if _, err := w.Write(red.Bytes(line)); err != nil {
			return err
		}
		return w.WriteByte('\n')
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}
