package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atomic-agent/atomic/internal/procgroup"
	"github.com/atomic-agent/atomic/internal/reaper"
	"github.com/atomic-agent/atomic/internal/tools"
)

// DefaultStartupBudget is how long the first model request waits for
// servers still starting.
const DefaultStartupBudget = 5 * time.Second

// State is a server's state.
type State string

// States.
const (
	Starting State = "starting"
	Ready    State = "ready"
	Failed   State = "failed"
	Closed   State = "closed"
)

// Status is what /mcp shows of one server.
type Status struct {
	Name      string
	Transport string
	State     State
	Tools     int
	Err       string
	// Handshake is how long the server took to connect and list its
	// tools (set once ready).
	Handshake time.Duration
}

// Options configure a Manager.
type Options struct {
	// Warn is told, once per server, that it failed or is slow; it must
	// not block.
	Warn func(string)
	// Version is the client version sent to servers.
	Version string
	// HandshakeTimeout fails a server that has not connected and listed
	// its tools by then (0: DefaultHandshakeTimeout). It is longer than
	// the start-up budget: a slow server still joins later.
	HandshakeTimeout time.Duration
	// ToolTimeout ends a tools/call the server has not answered by then,
	// as the tool's error (0: DefaultToolTimeout).
	ToolTimeout time.Duration
}

// DefaultToolTimeout is how long a tools/call may go unanswered: long
// enough for any tool that works (a build, a crawl), short of hanging a
// run for good on a server that never answers. MCP_TOOL_TIMEOUT (ms, as
// Claude Code reads it) or the config's mcp_tool_timeout change it.
const DefaultToolTimeout = 10 * time.Minute

func (o Options) toolTimeout() time.Duration {
	if o.ToolTimeout > 0 {
		return o.ToolTimeout
	}
	return DefaultToolTimeout
}

// DefaultHandshakeTimeout is when a server still starting is given up.
const DefaultHandshakeTimeout = 30 * time.Second

func (o Options) handshakeTimeout() time.Duration {
	if o.HandshakeTimeout > 0 {
		return o.HandshakeTimeout
	}
	return DefaultHandshakeTimeout
}

// Manager runs the configured servers for one session. Safe for
// concurrent use.
type Manager struct {
	opts Options
	// ctx bounds the servers' lives, those Add starts later too.
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started time.Time

	mu      sync.Mutex
	servers []*server
	sets    []*tools.Set
	closed  bool
}

type server struct {
	cfg      Server
	ready    chan struct{} // closed when no longer starting
	progress progressRoutes

	// under Manager.mu
	state     State
	err       error
	tools     []*Tool
	sess      *sdk.ClientSession
	handshake time.Duration
	warned    bool
}

// Start connects to every server concurrently and returns at once; ctx
// bounds the servers' lives (Close ends them sooner).
func Start(ctx context.Context, servers []Server, opts Options) *Manager {
	ctx, cancel := context.WithCancel(ctx)
	m := &Manager{opts: opts, ctx: ctx, cancel: cancel, started: time.Now()}
	for _, cfg := range servers {
		m.Add(cfg)
	}
	return m
}

// Add starts one more server (one the user approved after the session
// began); its tools join the sets when it is up. It reports false when
// the manager is closed or a server of that name runs already.
func (m *Manager) Add(cfg Server) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || slices.ContainsFunc(m.servers, func(s *server) bool { return s.cfg.Name == cfg.Name }) {
		return false
	}
	s := &server{cfg: cfg, state: Starting, ready: make(chan struct{})}
	m.servers = append(m.servers, s)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.run(m.ctx, s)
	}()
	return true
}

// AddTo makes sets offer the servers' tools: those ready now at once, the
// others when they come up.
func (m *Manager) AddTo(sets ...*tools.Set) {
	if m == nil {
		return
	}
	for _, set := range sets {
		set.AddAwaiter(m.await)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sets = append(m.sets, sets...)
	for _, s := range m.servers {
		for _, t := range s.tools {
			for _, set := range sets {
				set.Add(t)
			}
		}
	}
}

// await is the sets' tools.Awaiter: a call naming mcp__<server>__<tool>
// of a server still starting waits for the server's start to end, which
// its handshake timeout bounds (DefaultHandshakeTimeout, 30 s, counted
// from its start), then gets that tool if the server offers it. Tools of
// a starting server are not offered before they are listed (as in Claude
// Code); only a call that names one waits.
func (m *Manager) await(ctx context.Context, name string) (tools.Tool, bool) {
	m.mu.Lock()
	var s *server
	for _, c := range m.servers {
		if c.state == Starting && strings.HasPrefix(name, ToolName(c.cfg.Name, "")) {
			s = c
			break
		}
	}
	m.mu.Unlock()
	if s == nil {
		return nil, false
	}
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range s.tools {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// run connects s and keeps its session until ctx ends.
func (m *Manager) run(ctx context.Context, s *server) {
	begin := time.Now()
	client := sdk.NewClient(&sdk.Implementation{Name: "atomic", Version: m.opts.Version}, &sdk.ClientOptions{
		ToolListChangedHandler: func(_ context.Context, req *sdk.ToolListChangedRequest) { m.refresh(ctx, s, req.Session) },
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			s.progress.notify(req.Params)
		},
	})
	tr, err := transport(s.cfg)
	stdio, _ := tr.(*stdioTransport)
	var sess *sdk.ClientSession
	var ts []*Tool
	if err == nil {
		// The connection lives on the context it starts with (the SSE
		// stream does), so the timeout cancels it only while starting.
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		timer := time.AfterFunc(m.opts.handshakeTimeout(), cancel)
		sess, ts, err = connect(cctx, client, tr, s, m.opts.toolTimeout())
		if err != nil {
			err = startFailure(err, stdio)
		}
		if !timer.Stop() && err == nil {
			err = fmt.Errorf("handshake: not done within %s", m.opts.handshakeTimeout())
			_ = sess.Close()
		}
		if err != nil && errors.Is(err, context.Canceled) && ctx.Err() == nil {
			err = fmt.Errorf("handshake: not done within %s", m.opts.handshakeTimeout())
		}
	}
	if err != nil {
		stdio.end()
		if ctx.Err() != nil {
			err = errors.Join(err, ctx.Err())
		}
		m.finish(s, nil, nil, fmt.Errorf("mcp server %s: %w", s.cfg.Name, err), 0)
		return
	}
	m.finish(s, sess, ts, nil, time.Since(begin))
	select {
	case <-ctx.Done():
	case <-waitDone(sess):
		m.mu.Lock()
		if s.state == Ready {
			s.state, s.err = Failed, fmt.Errorf("mcp server %s: connection lost", s.cfg.Name)
		}
		m.mu.Unlock()
	}
	stdio.end() // first: Close then reaps the process at once
	_ = sess.Close()
}

func waitDone(sess *sdk.ClientSession) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		_ = sess.Wait()
		close(done)
	}()
	return done
}

func connect(ctx context.Context, client *sdk.Client, tr sdk.Transport, s *server, timeout time.Duration) (*sdk.ClientSession, []*Tool, error) {
	sess, err := client.Connect(ctx, tr, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("handshake: %w", err)
	}
	var ts []*Tool
	if sess.InitializeResult() != nil && sess.InitializeResult().Capabilities != nil && sess.InitializeResult().Capabilities.Tools != nil {
		for t, err := range sess.Tools(ctx, nil) {
			if err != nil {
				_ = sess.Close()
				return nil, nil, fmt.Errorf("listing tools: %w", err)
			}
			ts = append(ts, newTool(s, t, sess, timeout))
		}
	}
	return sess, ts, nil
}

// finish records how s's start ended and adds its tools to the sets.
func (m *Manager) finish(s *server, sess *sdk.ClientSession, ts []*Tool, err error, took time.Duration) {
	m.mu.Lock()
	warn := ""
	if err != nil {
		s.state, s.err = Failed, err
		if !s.warned && !m.closed {
			s.warned, warn = true, err.Error()
		}
	} else {
		s.state, s.sess, s.tools, s.handshake = Ready, sess, ts, took
		for _, t := range ts {
			for _, set := range m.sets {
				set.Add(t)
			}
		}
	}
	m.mu.Unlock()
	if warn != "" && m.opts.Warn != nil {
		m.opts.Warn(warn)
	}
	close(s.ready) // after the warning: whoever waited sees it given
}

// refresh lists s's tools again when the server says they changed: new
// ones join the sets (a removed one stays offered and fails when called,
// as tools.Set has no removal). It lists in its own goroutine, since the
// notification's handler must not wait on the same connection.
func (m *Manager) refresh(ctx context.Context, s *server, sess *sdk.ClientSession) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.wg.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		lctx, cancel := context.WithTimeout(ctx, m.opts.handshakeTimeout())
		defer cancel()
		var ts []*Tool
		for t, err := range sess.Tools(lctx, nil) {
			if err != nil {
				return // the next change, or a call, says more
			}
			ts = append(ts, newTool(s, t, sess, m.opts.toolTimeout()))
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if s.state != Ready || s.sess != sess {
			return // not up yet (its start lists the tools) or gone
		}
		s.tools = ts
		for _, t := range ts {
			for _, set := range m.sets {
				set.Add(t)
			}
		}
	}()
}

// transport builds s's transport.
func transport(s Server) (sdk.Transport, error) {
	switch s.Type {
	case Stdio:
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Env = serverEnv(os.Environ(), s.Env)
		// Its own process group, so Close ends what it spawned too (npx,
		// node wrappers).
		cmd.SysProcAttr = procgroup.Attr()
		reaper.Guard(cmd)
		return newStdioTransport(cmd), nil
	case HTTP:
		return &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: headerClient(s.Headers),
			MaxRetries: -1}, nil
	case SSE:
		return &sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: headerClient(s.Headers)}, nil
	}
	return nil, fmt.Errorf("unknown transport %q", s.Type)
}

// serverEnv is a stdio server's environment: Atomic's without any
// secret (no provider key: a server has no use for Atomic's model
// credentials), plus the server's own env entries as written, which the
// user gave it deliberately (a GITHUB_TOKEN, even an API key), in a
// stable order.
func serverEnv(environ []string, own map[string]string) []string {
	env := tools.EnvFor(environ)
	for _, k := range slices.Sorted(maps.Keys(own)) {
		env = append(env, k+"="+own[k])
	}
	return env
}

// headerClient sends headers with every request.
func headerClient(h map[string]string) *http.Client {
	if len(h) == 0 {
		return nil
	}
	return &http.Client{Transport: headerRoundTripper{h: h, next: http.DefaultTransport}}
}

type headerRoundTripper struct {
	h    map[string]string
	next http.RoundTripper
}

func (rt headerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range rt.h {
		req.Header.Set(k, v)
	}
	return rt.next.RoundTrip(req)
}

// Ready waits until every server has finished starting, or budget (counted
// from Start) has passed, or ctx ends. Servers still starting then get one
// warning each and join when they come up; their names are returned.
func (m *Manager) Ready(ctx context.Context, budget time.Duration) []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	servers := slices.Clone(m.servers)
	m.mu.Unlock()
	timer := time.NewTimer(time.Until(m.started.Add(budget)))
	defer timer.Stop()
	var slow []string
	for _, s := range servers {
		select {
		case <-s.ready:
			continue
		case <-timer.C:
		case <-ctx.Done():
		}
		select {
		case <-s.ready:
		default:
			slow = append(slow, s.cfg.Name)
		}
	}
	// servers after the first slow one were not waited for: check each
	for _, s := range servers {
		select {
		case <-s.ready:
			slow = slices.DeleteFunc(slow, func(n string) bool { return n == s.cfg.Name })
		default:
		}
	}
	m.warnSlow(slow, budget)
	return slow
}

func (m *Manager) warnSlow(names []string, budget time.Duration) {
	var warns []string
	m.mu.Lock()
	for _, s := range m.servers {
		if slices.Contains(names, s.cfg.Name) && !s.warned {
			s.warned = true
			warns = append(warns, fmt.Sprintf("mcp server %s: not ready after %s; starting without its tools (they join when it is up)", s.cfg.Name, budget))
		}
	}
	m.mu.Unlock()
	if m.opts.Warn != nil {
		for _, w := range warns {
			m.opts.Warn(w)
		}
	}
}

// Statuses reports every server, in configuration order.
func (m *Manager) Statuses() []Status {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.servers))
	for _, s := range m.servers {
		st := Status{Name: s.cfg.Name, Transport: s.cfg.Type, State: s.state, Tools: len(s.tools), Handshake: s.handshake}
		if s.err != nil {
			st.Err = s.err.Error()
		}
		out = append(out, st)
	}
	return out
}

// Close ends every server (stdio processes and their process groups) and
// waits for them.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
	m.mu.Lock()
	for _, s := range m.servers {
		s.state = Closed // a failed server keeps its last error
	}
	m.mu.Unlock()
}
