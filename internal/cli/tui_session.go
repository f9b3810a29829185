package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/ui"
)

// tuiSession answers the chat's /permissions, /config, /resume, /add-dir
// and /doctor from the session's flags, files and store (ui.Session).
type tuiSession struct {
	c   *common
	s   *setup
	ios IOStreams
	// given are the flags on the command line (by the name given).
	given map[string]bool
	// stored says what /status says of the store.
	stored *storeState
	// run is what the running session answers (the lead's model, its
	// provider, the MCP servers); nil parts are reported as unknown.
	run runState
}

// givenFlags are the flags set on fs's command line.
func givenFlags(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}

func (t *tuiSession) Permissions() (string, []permission.RuleInForce) {
	return string(t.s.gate.Mode()), t.s.gate.Rules()
}

func (t *tuiSession) AllowRule(rule string) error { return t.s.gate.AllowForSession(rule) }
func (t *tuiSession) DenyRule(rule string) error  { return t.s.gate.DenyForSession(rule) }

// Sessions are this folder's saved sessions, newest first, as the picker
// of atomic --resume lists them.
func (t *tuiSession) Sessions(ctx context.Context) ([]ui.PickerSession, error) {
	st, err := openSessions(ctx, t.ios)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	list, err := st.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	var out []ui.PickerSession
	for _, s := range list {
		if sameDir(s.Dir, t.ios.Dir) && len(out) < pickerSessions {
			out = append(out, ui.PickerSession{ID: s.ID, Title: s.Title, Status: s.Status, Started: s.Started, Agents: s.Agents})
		}
	}
	return out, nil
}

// AddDir adds path (relative to the workspace) to the workspace for the
// rest of the session, as --add-dir does at start: the file tools may use
// it and the commands started from now on may write it (the sandbox
// refuses, by name, a folder it protects). A folder already in the
// workspace is refused.
func (t *tuiSession) AddDir(path string) (string, error) {
	dir := path
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(t.ios.Dir, dir)
	}
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("/add-dir %s: no such folder (%s)", path, dir)
	case err != nil:
		return "", fmt.Errorf("/add-dir %s: %w", path, err)
	case !fi.IsDir():
		return "", fmt.Errorf("/add-dir %s: not a folder", path)
	}
	ws := t.s.workspace
	if _, err := ws.Resolve(dir); err == nil {
		return "", fmt.Errorf("/add-dir %s: already in the workspace (%s)", path, strings.Join(append([]string{ws.Root}, ws.Extra()...), ", "))
	}
	// The sandbox first: a folder it refuses is not given to the tools.
	if err := t.s.sandbox.AddWritable(dir); err != nil {
		return "", fmt.Errorf("/add-dir %s: %w", path, err)
	}
	ws.Added.Add(dir)
	return dir, nil
}
