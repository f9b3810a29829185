package opencode

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/inbox"
	"github.com/atomic-agent/atomic/internal/provider"
)

// Package is the npm package that installs the CLI, for the message a
// missing binary gets.
const Package = "opencode-ai"

// interruptWait bounds the wait for an aborted turn's end.
const interruptWait = 5 * time.Second

// Result is what a turn produced.
type Result = backend.Result

// Session is a backend.Session run by one `opencode serve` process.
type Session struct {
	cfg       backend.Config
	srv       *server
	tr        *Translator
	dir       string // the throwaway config dir, removed on Close
	generated bool   // the config names Atomic's provider
	// ctx bounds the event stream and approvals; Close cancels it.
	ctx     context.Context
	cancel  context.CancelFunc
	reading chan struct{} // closed when the event stream ended
	readErr error
	answers sync.WaitGroup
	asks    backend.Asks // the approvals waiting in the gate

	mu    sync.Mutex
	model string
	inbox inbox.Inbox
	fresh bool // Reset: the next Run starts a new OpenCode session
	// resume is the earlier OpenCode session (cfg.ResumeCLI) the lead
	// continues rather than creating one; a Reset clears it.
	resume string
	// turns are the lead's: busy begins one, idle ends it, a background
	// completion posted to the idle lead wakes it.
	turns     *backend.TurnTracker[struct{}]
	announced sync.Once // the lead's session.start
	closeOnce sync.Once
	closeErr  error
}

// Compile-time checks.
var (
	_ backend.Session        = (*Session)(nil)
	_ backend.AgentCanceller = (*Session)(nil)
)

// New starts `opencode serve` in cfg.Workspace on a free loopback port,
// subscribes to its events and creates the session's OpenCode session.
func New(cfg backend.Config) (*Session, error) {
	bin, err := backend.FindCLI(backend.OpenCode, cfg.Bin)
	if err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	dir, file, err := writeConfig(cfg.Gate, cfg.BaseURL, cfg.APIKey, cfg.Model)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, dir: dir, model: cfg.Model, resume: cfg.ResumeCLI, generated: cfg.BaseURL != "" || cfg.APIKey != "",
		turns: backend.NewTurnTracker[struct{}](), reading: make(chan struct{}), tr: NewTranslator(cfg)}
	env := processEnv(os.Environ(), file, s.generated, cfg.APIKey)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.srv, err = startServer(s.ctx, bin, cfg.Workspace, env)
	if err != nil {
		s.cancel()
		os.RemoveAll(dir)
		return nil, err
	}
	connected := make(chan struct{})
	go func() {
		defer close(s.reading)
		s.readErr = s.srv.events(s.ctx, connected, s.handle)
	}()
	select {
	case <-connected:
	case <-s.reading:
		return nil, errors.Join(fmt.Errorf("opencode: event stream: %w", s.readErr), s.Close())
	}
	if err := s.newLead(s.ctx); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

// newLead creates the OpenCode session the lead runs in, or takes the
// earlier one cfg.ResumeCLI names (OpenCode keeps its sessions in its data
// dir, so `opencode serve` finds it again); the session's id is told to
// cfg.OnCLISession.
func (s *Session) newLead(ctx context.Context) error {
	var r struct {
		ID string `json:"id"`
	}
	s.mu.Lock()
	resume := s.resume
	if s.fresh {
		resume = ""
	}
	s.mu.Unlock()
	if resume != "" {
		if err := s.srv.get(ctx, "/session/"+url.PathEscape(resume), &r); err != nil {
			return fmt.Errorf("opencode: resume session %s: %w", resume, err)
		}
	} else if err := s.srv.post(ctx, "/session", map[string]string{"title": "atomic " + s.cfg.SessionID}, &r); err != nil {
		return fmt.Errorf("opencode: create session: %w", err)
	}
	if r.ID == "" {
		return errors.New("opencode: the server named no session id")
	}
	s.tr.SetLead(r.ID)
	s.mu.Lock()
	s.fresh, s.resume = false, ""
	s.mu.Unlock()
	s.turns.Reset()
	if s.cfg.OnCLISession != nil {
		s.cfg.OnCLISession(r.ID)
	}
	return nil
}

// handle takes every event, on the reading goroutine.
func (s *Session) handle(e Event) {
	if ask, ok := s.tr.Asked(e); ok {
		ctx, done := s.asks.Add(s.ctx, ask.ID, ask.session)
		s.answers.Add(1)
		go func() {
			defer s.answers.Done()
			defer done()
			if err := s.decide(ctx, ask); err != nil && s.ctx.Err() == nil {
				s.cfg.Sink.Emit(event.Event{Type: event.Error, Time: s.cfg.Now(), SessionID: s.cfg.SessionID,
					AgentID: s.cfg.AgentID, Data: event.ErrorData{Message: err.Error()}})
			}
		}()
		return
	}
	switch n := s.tr.Handle(e); {
	case n.Woke:
		s.turns.Woke()
	case n.LeadBusy:
		s.turns.Began("")
	case n.LeadIdle:
		s.turns.Ended("", struct{}{})
	}
}

// Run sends prompt with the delivered messages (or, with neither, carries a
// turn the lead began by itself to its end) and waits for the lead session
// to go idle. Background sub-agents may still run then: each ends with its
// completion message.
func (s *Session) Run(ctx context.Context, prompt string) (*Result, error) {
	s.announce()
	s.mu.Lock()
	fresh := s.fresh
	s.mu.Unlock()
	if fresh {
		if err := s.newLead(ctx); err != nil {
			return nil, err
		}
	}
	usage0, _ := s.tr.LeadStats()
	if s.turns.Pending() {
		err := s.wait(ctx, false)
		if err == nil {
			err = s.failed()
		}
		if err != nil || (prompt == "" && !s.inbox.Live()) {
			return s.result(usage0), err
		}
	}
	text := s.inbox.Compose(prompt)
	if text == "" {
		return &Result{}, nil
	}
	body := map[string]any{"parts": []map[string]string{{"type": "text", "text": text}}}
	if ref, ok := modelRef(s.Model(), s.generated); ok {
		body["model"] = ref
	}
	s.turns.Send()
	if err := s.srv.post(ctx, "/session/"+s.tr.Lead()+"/prompt_async", body, nil); err != nil {
		s.turns.Unsent()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("opencode: turn interrupted: %w", ctx.Err())
		}
		return nil, fmt.Errorf("opencode: prompt: %w", err)
	}
	err := s.wait(ctx, true)
	if err == nil {
		err = s.failed()
	}
	return s.result(usage0), err
}

// failed is the error of a turn whose model call failed: OpenCode reports
// it (session.error) and then goes idle as after any turn, which must not
// pass for success.
func (s *Session) failed() error {
	if why := s.tr.TakeLeadError(); why != "" {
		return fmt.Errorf("opencode: the turn failed: %s", why)
	}
	return nil
}

// wait waits for the end of Run's turn (ours) or of one the lead began by
// itself. On cancellation it aborts the lead (and its sub-agents) and
// waits, bounded, for OpenCode to confirm.
func (s *Session) wait(ctx context.Context, ours bool) error {
	if _, ok := s.turns.Wait(ctx, ours, s.reading); ok {
		return nil
	}
	if ctx.Err() == nil {
		return s.srv.wrap(fmt.Errorf("opencode: the server's event stream ended: %v", s.readErr))
	}
	s.interrupt(ours)
	return fmt.Errorf("opencode: turn interrupted: %w", ctx.Err())
}

// interrupt aborts the lead's session and every sub-agent's, waits
// (bounded) for the lead to go idle, and ends the sub-agents OpenCode did
// not report ended as interrupted. The turn waited for (ours or the
// lead's own) is over then.
func (s *Session) interrupt(ours bool) {
	ctx, cancel := context.WithTimeout(s.ctx, interruptWait)
	defer cancel()
	_ = s.srv.post(ctx, "/session/"+s.tr.Lead()+"/abort", nil, nil)
	for _, child := range s.tr.Running() {
		_ = s.srv.post(ctx, "/session/"+child+"/abort", nil, nil)
	}
	s.asks.WithdrawAll()
	defer s.tr.EndAll()
	s.turns.Settle(ctx, s.reading)
	s.turns.Abort(struct{}{})
	done, cancelNow := context.WithCancel(ctx)
	cancelNow()
	s.turns.Wait(done, ours, nil) // taken: the interrupted turn's end
}

// CancelAgent aborts one sub-agent's OpenCode session; it ends
// interrupted.
func (s *Session) CancelAgent(id string) error {
	child, running := s.tr.Child(id)
	if child == "" {
		return fmt.Errorf("opencode: no sub-agent %q was started by this session", id)
	}
	if !running {
		return nil
	}
	ctx, cancel := context.WithTimeout(s.ctx, interruptWait)
	defer cancel()
	if err := s.srv.post(ctx, "/session/"+child+"/abort", nil, nil); err != nil {
		return fmt.Errorf("opencode: abort %s: %w", id, err)
	}
	s.asks.Withdraw(child)
	s.tr.Interrupted(id)
	return nil
}

func (s *Session) result(usage0 event.Usage) *Result {
	u, text := s.tr.LeadStats()
	return &Result{Turns: 1, Text: text, StopReason: provider.StopEndTurn,
		Usage: event.Usage{InputTokens: u.InputTokens - usage0.InputTokens, OutputTokens: u.OutputTokens - usage0.OutputTokens,
			CacheReadTokens: u.CacheReadTokens - usage0.CacheReadTokens, CacheCreationTokens: u.CacheCreationTokens - usage0.CacheCreationTokens}}
}

// announce emits the lead's session.start once.
func (s *Session) announce() {
	s.announced.Do(func() { s.cfg.Sink.Emit(s.cfg.SessionStart(backend.OpenCode, s.Model())) })
}

// Deliver queues text for the next turn.
func (s *Session) Deliver(text string) { s.inbox.Deliver(text) }

// DeliverLazy queues a message decided when the next turn starts.
func (s *Session) DeliverLazy(take func() (string, bool), live func() bool) {
	s.inbox.DeliverLazy(take, live)
}

// Pending reports delivered messages, or a turn the lead began by itself
// (a background sub-agent's completion woke it).
func (s *Session) Pending() bool {
	return s.turns.Pending() || s.inbox.Live()
}

// Reset forgets the conversation: the next Run starts a new OpenCode
// session.
func (s *Session) Reset() {
	s.mu.Lock()
	s.fresh = true
	s.inbox.Clear()
	s.mu.Unlock()
}

// SetModel switches the model for the following turns.
func (s *Session) SetModel(model string) {
	s.mu.Lock()
	s.model = model
	s.mu.Unlock()
}

// Model is the session's model ("" when OpenCode chooses).
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// PID is the server's process id, which is also its process group id.
func (s *Session) PID() int { return s.srv.cmd.Process.Pid }

// Close ends the server and every process it started (its process group),
// and waits for the session's goroutines. Sub-agents still at work end
// interrupted.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		s.srv.stop()
		<-s.reading
		s.answers.Wait()
		s.tr.EndAll()
		if err := os.RemoveAll(s.dir); err != nil {
			s.closeErr = fmt.Errorf("opencode: remove config dir: %w", err)
		}
	})
	return s.closeErr
}
