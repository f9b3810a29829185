package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/store"
	"github.com/atomic-agent/atomic/internal/tools"
)

// record starts recording the run's session in the store, opened in the
// background so the run never waits for it. It returns the run's session
// id and the journal to give the runtime (nil with
// --no-session-persistence or when the store has no place), and stop,
// which flushes and ends the recording. A store that cannot be used says
// so once on stderr and the run goes on. A resumed session (res not nil)
// keeps its id and is appended to.
func (c *common) record(ios IOStreams, s *setup, res *resumed) (id string, j runtime.Journal, stop func()) {
	id = runtime.NewSessionID(time.Now())
	if res != nil {
		id = res.session.ID
	}
	if c.noPersistence {
		return id, nil, func() {}
	}
	warn := func(err error) { fmt.Fprintf(ios.Err, "atomic: warning: %v\n", err) }
	path, err := store.Path(ios.Getenv)
	if err != nil {
		warn(fmt.Errorf("this session is not saved: %w", err))
		return id, nil, func() {}
	}
	c.cliHome = store.CLIHome(path, id)
	model := s.ps.Model
	if c.backendName(s) != backend.Native {
		model = firstNonEmpty(c.model, s.file.Model)
	}
	rec := store.Record(path, store.Options{}, store.Meta{
		ID: id, Dir: ios.Dir, Backend: c.backendName(s), Model: model, Secrets: secrets(s), Resume: res != nil,
	}, warn)
	return id, rec, rec.Close
}

// secrets are the values the store must never hold: the API keys in use
// and every credential in the environment.
func secrets(s *setup) []string {
	out := []string{s.ps.APIKey, s.file.APIKey}
	for _, kv := range os.Environ() {
		if name, v, ok := strings.Cut(kv, "="); ok && v != "" && tools.SecretEnv(name) {
			out = append(out, v)
		}
	}
	return out
}
