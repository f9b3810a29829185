package copilot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	sdk "github.com/github/copilot-sdk/go"
	"github.com/github/copilot-sdk/go/rpc"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/inbox"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/reaper"
)

// Bounds on waiting for the CLI.
const (
	startTimeout     = 60 * time.Second // the CLI's start, connect and session.create
	interruptTimeout = 5 * time.Second  // session.abort until the turn ends
	closeTimeout     = 5 * time.Second  // Client.Stop, then the marked processes are killed
)

// Result is what a turn produced.
type Result = backend.Result

// Session is a backend.Session run by one Copilot CLI process through the
// SDK: one Copilot session (a new one after Reset).
type Session struct {
	cfg    backend.Config
	client *sdk.Client
	tr     *Translator
	mark   string
	pid    int           // the CLI process
	dead   chan struct{} // closed when the CLI process is gone
	stop   chan struct{} // closed by Close: the watcher ends

	// ctx bounds the approvals the CLI asks for; Close cancels it.
	ctx     context.Context
	cancel  context.CancelFunc
	answers sync.WaitGroup
	watcher sync.WaitGroup

	mu    sync.Mutex
	sess  *sdk.Session
	unsub func()
	model string
	inbox inbox.Inbox
	fresh bool // Reset: the next Run starts a new Copilot session
	// resume is the earlier Copilot session (cfg.ResumeCLI) the lead
	// continues rather than creating one; a Reset clears it.
	resume    string
	announced sync.Once    // the lead's session.start
	asks      backend.Asks // approvals under way, by the asking agent
	closeOnce sync.Once
	closeErr  error
}

// Compile-time checks: a Copilot session is a backend session whose
// sub-agents can be cancelled one by one.
var (
	_ backend.Session        = (*Session)(nil)
	_ backend.AgentCanceller = (*Session)(nil)
)

// New starts the Copilot CLI (`copilot --headless --stdio`, through the
// SDK) in cfg.Workspace and creates the session's Copilot session. With
// cfg.BaseURL set, Atomic's endpoint is the session's provider (BYOK,
// OpenAI Chat Completions) and the CLI runs offline; otherwise the user's
// own Copilot login is used.
func New(cfg backend.Config) (*Session, error) {
	bin, err := backend.FindCLI(backend.Copilot, cfg.Bin)
	if err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	var b [12]byte
	_, _ = rand.Read(b[:])
	s := &Session{cfg: cfg, tr: NewTranslator(cfg), mark: hex.EncodeToString(b[:]), model: cfg.Model, resume: cfg.ResumeCLI,
		dead: make(chan struct{}), stop: make(chan struct{})}
	env := processEnv(os.Environ(), s.mark, cfg)
	opts := &sdk.ClientOptions{WorkingDirectory: cfg.Workspace}
	if cfg.BaseURL != "" {
		no := false
		opts.UseLoggedInUser = &no
	}
	opts.Connection = sdk.StdioConnection{Path: bin, Env: env}
	s.client = sdk.NewClient(opts)
	reaper.Guard(nil) // the SDK starts the CLI with env, which carries the mark
	s.ctx, s.cancel = context.WithCancel(context.Background())
	ctx, cancel := context.WithTimeout(s.ctx, startTimeout)
	defer cancel()
	if err := s.client.Start(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("copilot: start %s: %w", bin, err), s.Close())
	}
	s.pid = cliPid(s.mark)
	s.watcher.Add(1)
	go s.watch()
	if err := s.newSession(ctx); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

func apiKey(k string) string {
	if k == "" {
		return "none" // a local server wants none, the CLI wants one set
	}
	return k
}

// watch closes dead when the CLI process is gone.
func (s *Session) watch() {
	defer s.watcher.Done()
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if cliGone(s.pid) {
				close(s.dead)
				return
			}
		}
	}
}

// newSession creates the Copilot session (again after a Reset), or
// resumes the earlier one cfg.ResumeCLI names (the CLI keeps its sessions
// under its home); the session's id is told to cfg.OnCLISession.
func (s *Session) newSession(ctx context.Context) error {
	yes := true
	// The approvals are answered from the session's events, which name
	// the agent that asks; the SDK's own handler stays out.
	noAnswer := func(sdk.PermissionRequest, sdk.PermissionInvocation) (rpc.PermissionDecision, error) {
		return &rpc.PermissionDecisionNoResult{}, nil
	}
	var provider *sdk.ProviderConfig
	if s.cfg.BaseURL != "" {
		provider = &sdk.ProviderConfig{Type: "openai", WireAPI: "completions", BaseURL: s.cfg.BaseURL, APIKey: apiKey(s.cfg.APIKey)}
	}
	s.mu.Lock()
	resume := s.resume
	s.mu.Unlock()
	var sess *sdk.Session
	var err error
	if resume != "" {
		sess, err = s.client.ResumeSession(ctx, resume, &sdk.ResumeSessionConfig{
			Model: s.Model(), WorkingDirectory: s.cfg.Workspace, Streaming: &yes, OnPermissionRequest: noAnswer,
			IncludeSubAgentStreamingEvents: &yes, Provider: provider,
		})
		if err != nil {
			return fmt.Errorf("copilot: resume session %s: %w", resume, err)
		}
	} else {
		sess, err = s.client.CreateSession(ctx, &sdk.SessionConfig{
			Model: s.Model(), WorkingDirectory: s.cfg.Workspace, Streaming: &yes, OnPermissionRequest: noAnswer,
			IncludeSubAgentStreamingEvents: &yes, Provider: provider,
		})
		if err != nil {
			return fmt.Errorf("copilot: create session: %w", err)
		}
	}
	unsub := sess.On(s.handle)
	s.mu.Lock()
	s.sess, s.unsub, s.fresh, s.resume = sess, unsub, false, ""
	s.mu.Unlock()
	if s.cfg.OnCLISession != nil {
		s.cfg.OnCLISession(sess.SessionID)
	}
	return nil
}

// handle takes every session event, on the SDK's event goroutine (in
// order): approvals are decided off it, everything is translated.
func (s *Session) handle(ev sdk.SessionEvent) {
	switch d := ev.Data.(type) {
	case *sdk.PermissionRequestedData:
		if d.ResolvedByHook != nil && *d.ResolvedByHook {
			break
		}
		ctx, done := s.asks.Add(s.ctx, d.RequestID, s.tr.AskerID(ev))
		s.mu.Lock()
		sess := s.sess
		s.mu.Unlock()
		s.answers.Add(1)
		go func() {
			defer s.answers.Done()
			dec := s.tr.Decide(ctx, ev, d)
			// Still open, the CLI waits for this answer, even when
			// CancelAgent withdrew the prompt (then it is a rejection).
			if done() {
				_, _ = sess.RPC.Permissions.HandlePendingPermissionRequest(s.ctx, &rpc.PermissionDecisionRequest{RequestID: d.RequestID, Result: dec})
			}
		}()
	case *sdk.PermissionCompletedData: // answered or withdrawn elsewhere: stop asking
		s.asks.Resolve(d.RequestID)
	}
	s.tr.Handle(ev)
}

// Run sends prompt and the delivered messages (or, with neither, carries a
// turn the CLI began by itself to its end) and waits for the lead's
// assistant.idle. The lead's background sub-agents may still run then:
// they end with their own subagent.completed.
func (s *Session) Run(ctx context.Context, prompt string) (*Result, error) {
	s.announce()
	s.mu.Lock()
	fresh := s.fresh
	s.mu.Unlock()
	if fresh {
		sctx, cancel := context.WithTimeout(ctx, startTimeout)
		err := s.newSession(sctx)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	usage0 := s.tr.LeadUsage()
	// A turn the CLI began by itself ends first: it is the lead's answer
	// to a background sub-agent's end, and ours follows it.
	if s.tr.Turns().Pending() {
		end, err := s.wait(ctx, false)
		if err != nil || (prompt == "" && !s.inbox.Live()) {
			return s.result(end, usage0), err
		}
	}
	text := s.inbox.Compose(prompt)
	if text == "" {
		return &Result{}, nil
	}
	s.tr.Begin()
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if _, err := sess.Send(ctx, sdk.MessageOptions{Prompt: text}); err != nil {
		s.tr.Fail(err.Error())
		s.tr.Turns().Wait(done(), true, nil) // taken: the failed turn's end
		return nil, fmt.Errorf("copilot: session.send: %w", err)
	}
	end, err := s.wait(ctx, true)
	return s.result(end, usage0), err
}

// done is a context already ended, for taking what is there without
// waiting.
func done() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// wait waits for the end of Run's turn (ours) or of one the CLI began by
// itself. On cancellation it aborts the turn and waits (bounded) for the
// CLI to confirm.
func (s *Session) wait(ctx context.Context, ours bool) (*TurnEnd, error) {
	end, ok := s.tr.Turns().Wait(ctx, ours, s.dead)
	switch {
	case ok && end.Error != "" && !end.Aborted:
		return &end, fmt.Errorf("copilot: turn failed: %s", end.Error)
	case ok:
		return &end, nil
	case ctx.Err() == nil:
		s.tr.EndAll()
		return nil, errors.New("copilot: the CLI exited during the turn")
	}
	return s.interrupt(ours), fmt.Errorf("copilot: turn interrupted: %w", ctx.Err())
}

// interrupt sends session.abort and waits (bounded) for the turn's end;
// sub-agents the CLI does not report ended in time end interrupted here.
func (s *Session) interrupt(ours bool) *TurnEnd {
	ctx, cancel := context.WithTimeout(s.ctx, interruptTimeout)
	defer cancel()
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	_ = sess.Abort(ctx)
	if end, ok := s.tr.Turns().Wait(ctx, ours, s.dead); ok {
		return &end
	}
	s.tr.EndAll()
	if end, ok := s.tr.Turns().Wait(done(), ours, nil); ok {
		return &end
	}
	return nil
}

// CancelAgent stops one of the lead's sub-agents: a background one through
// the CLI's task cancel, and its record ends interrupted.
func (s *Session) CancelAgent(id string) error {
	cid, known := s.tr.Active()[id]
	if !known {
		return fmt.Errorf("copilot: no sub-agent %q under way", id)
	}
	if cid != "" {
		s.mu.Lock()
		sess := s.sess
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(s.ctx, interruptTimeout)
		_, err := sess.RPC.Tasks.Cancel(ctx, &rpc.TasksCancelRequest{ID: cid})
		cancel()
		if err != nil {
			s.tr.End(id)
			return fmt.Errorf("copilot: cancel %s: %w", id, err)
		}
	}
	s.tr.End(id)
	// Its prompts come down and the CLI gets rejections: a sync sub-agent
	// it cannot cancel runs nothing more that needed asking.
	s.asks.Withdraw(id)
	return nil
}

func (s *Session) result(end *TurnEnd, usage0 event.Usage) *Result {
	r := &Result{Turns: 1}
	u := s.tr.LeadUsage()
	r.Usage = event.Usage{InputTokens: u.InputTokens - usage0.InputTokens, OutputTokens: u.OutputTokens - usage0.OutputTokens,
		CacheReadTokens: u.CacheReadTokens - usage0.CacheReadTokens, CacheCreationTokens: u.CacheCreationTokens - usage0.CacheCreationTokens,
		CostUSD: u.CostUSD - usage0.CostUSD}
	switch {
	case end == nil:
		r.StopReason = provider.StopOther
	case end.Aborted:
		r.Text, r.StopReason = end.Text, event.StopInterrupted
	default:
		r.Text, r.StopReason = end.Text, provider.StopEndTurn
	}
	return r
}

// announce emits the lead's session.start once.
func (s *Session) announce() {
	s.announced.Do(func() { s.cfg.Sink.Emit(s.cfg.SessionStart(backend.Copilot, s.Model())) })
}

// Deliver queues text for the next turn.
func (s *Session) Deliver(text string) { s.inbox.Deliver(text) }

// DeliverLazy queues a message decided when the next turn starts.
func (s *Session) DeliverLazy(take func() (string, bool), live func() bool) {
	s.inbox.DeliverLazy(take, live)
}

// Pending reports delivered messages, or a lead turn the CLI began by
// itself (set before the background sub-agent's end that causes it is
// told).
func (s *Session) Pending() bool {
	return s.tr.Turns().Pending() || s.inbox.Live()
}

// Reset forgets the conversation: the next Run starts a new Copilot
// session (sub-agent ids keep counting). The old one is disconnected.
func (s *Session) Reset() {
	s.mu.Lock()
	old, unsub := s.sess, s.unsub
	s.fresh, s.sess, s.unsub = true, old, nil
	s.inbox.Clear()
	s.mu.Unlock()
	if unsub != nil {
		unsub()
	}
	s.tr.EndAll()
	if old != nil {
		_ = old.Disconnect()
	}
}

// SetModel switches the model for the following turns (a new Copilot
// session takes it; the current one is switched through the SDK).
func (s *Session) SetModel(model string) {
	s.mu.Lock()
	s.model = model
	sess := s.sess
	s.mu.Unlock()
	if sess != nil && model != "" {
		ctx, cancel := context.WithTimeout(s.ctx, startTimeout)
		_ = sess.SetModel(ctx, model, nil) // the next Run reports a CLI that is gone
		cancel()
	}
}

// Model is the session's model ("" when the CLI chooses).
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// Close ends the CLI and every process it started: the SDK's Stop
// (runtime.shutdown, then it kills the CLI), then every process still
// carrying the session's mark is killed. Sub-agents still running end
// interrupted.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		s.answers.Wait()
		s.mu.Lock()
		unsub := s.unsub
		s.unsub = nil
		s.mu.Unlock()
		if unsub != nil {
			unsub()
		}
		stopped := make(chan error, 1)
		go func() { stopped <- s.client.Stop() }()
		select {
		case <-stopped:
		case <-time.After(closeTimeout):
			s.client.ForceStop()
			<-stopped
		}
		if left := killMarked(s.mark, closeTimeout); len(left) > 0 {
			s.closeErr = fmt.Errorf("copilot: processes %v outlived the session", left)
		}
		close(s.stop)
		s.watcher.Wait()
		s.tr.EndAll()
	})
	return s.closeErr
}
