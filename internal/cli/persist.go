package cli

import (
	"context"
	"fmt"
	"net/http/httptrace"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/redact"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/store"
	"github.com/atomic-agent/atomic/internal/tools"
)

// record starts recording the run's session in the store, opened in the
// background so the run never waits for it. It returns the run's session
// id and the journal to give the runtime (nil with
// --no-session-persistence or when the store has no place), and stop,
// which flushes and ends the recording and lets the session go. A store
// that cannot be used says so once on stderr and the run goes on. A
// resumed session (res not nil) keeps its id and its hold, and is
// appended to.
func (c *common) record(ios IOStreams, s *setup, res *resumed) (id string, j runtime.Journal, stop func()) {
	return c.recordWarning(ios, s, res, func(err error) { fmt.Fprintf(ios.Err, "atomic: warning: %v\n", err) })
}

// recordWarning is record telling warn, not stderr, that the store cannot
// be used (the chat says it in its transcript).
func (c *common) recordWarning(ios IOStreams, s *setup, res *resumed, warn func(error)) (id string, j runtime.Journal, stop func()) {
	id = runtime.NewSessionID(time.Now())
	if c.sessionID != "" {
		id = c.sessionID
	}
	var hold *store.Hold
	forked := res != nil && c.forkSession
	if res != nil && !forked {
		id, hold = res.session.ID, res.hold
	}
	if forked {
		res.forkAs(id)
	}
	release := func() { hold.Release() }
	if c.noPersistence {
		return id, nil, release
	}
	path, err := store.Path(ios.Getenv)
	if err != nil {
		warn(fmt.Errorf("this session is not saved: %w", err))
		return id, nil, release
	}
	c.cliHome = store.CLIHome(path, id)
	model := s.ps.Model
	if c.backendName(s) != backend.Native {
		model = firstNonEmpty(c.model, s.file.Model)
	}
	// A native lead's store is opened once its first model request is
	// written, while the model answers; an external CLI's takes longer to
	// start than OpenDelay.
	native := c.backendName(s) == backend.Native && s.prov != nil
	rec := store.Record(path, store.Options{}, store.Meta{
		ID: id, Dir: ios.Dir, Backend: c.backendName(s), Model: model, Secrets: secrets(s), Resume: res != nil && !forked, Hold: hold,
		OpenAtBegin: native,
	}, warn)
	if forked {
		res.seed(rec)
	}
	if native {
		s.prov = &beginOnRequest{Provider: s.prov, begin: rec.Begin}
	}
	if ios.Exits {
		return id, rec, rec.Exit
	}
	return id, rec, rec.Close
}

// beginOnRequest calls begin once the first request is written: the
// session store opens on its own goroutine while the model answers,
// instead of competing with building and sending the request. A provider
// that sends no HTTP request (or fails before writing one) begins the
// store when its first Stream returns.
type beginOnRequest struct {
	provider.Provider
	begin func() // once; it only signals
	begun atomic.Bool
}

func (p *beginOnRequest) Stream(ctx context.Context, req provider.Request, on func(provider.Chunk)) (*provider.Response, error) {
	if p.begun.Load() {
		return p.Provider.Stream(ctx, req, on)
	}
	defer p.start()
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { p.start() }})
	return p.Provider.Stream(ctx, req, on)
}

// Unwrap is the provider wrapped (provider.ListModels looks through it).
func (p *beginOnRequest) Unwrap() provider.Provider { return p.Provider }

func (p *beginOnRequest) start() {
	p.begun.Store(true)
	p.begin()
}

// secrets are the values nothing Atomic writes may hold (the store, the
// lifecycle log, exports): the API key in use, the config file's
// api_key, and the value of every credential variable of the environment
// (tools.SecretEnv: the providers' keys, ANTHROPIC_AUTH_TOKEN, Atomic's
// own secrets).
func secrets(s *setup) []string {
	out := []string{s.ps.APIKey, s.file.APIKey}
	return append(out, envSecrets()...)
}

// envSecrets are the values of the environment's credential variables.
func envSecrets() []string {
	var out []string
	for _, kv := range os.Environ() {
		if name, v, ok := strings.Cut(kv, "="); ok && v != "" && tools.SecretEnv(name) {
			out = append(out, v)
		}
	}
	return out
}

// redactor masks s's secrets and key-shaped text (package redact) in what
// the run writes besides the store: the lifecycle log and the
// OpenTelemetry export.
func (s *setup) redactor() *redact.Redactor { return redact.New(secrets(s)) }
