package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/inbox"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/procgroup"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/reaper"
)

// Bounds on waiting for the CLI.
const (
	startTimeout     = 60 * time.Second // initialize and thread/start
	interruptTimeout = 5 * time.Second  // turn/interrupt until the turn ends
	closeGrace       = 2 * time.Second  // stdin closed → SIGTERM → SIGKILL
)

// Result is what a turn produced.
type Result = backend.Result

// Session is a backend.Session run by one `codex app-server` process.
type Session struct {
	cfg    backend.Config
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *backend.Tail
	home   string // throwaway CODEX_HOME, removed on Close ("" when none or kept)
	conn   *conn
	tr     *Translator
	exited chan struct{} // closed when the process has been waited for
	// interruptWait bounds the wait for an interrupted turn's end.
	interruptWait time.Duration

	// ctx bounds the approvals the CLI asks for; Close cancels it.
	ctx     context.Context
	cancel  context.CancelFunc
	answers sync.WaitGroup
	asks    backend.Asks // the approvals waiting in the gate, by thread

	mu     sync.Mutex
	thread string
	// resume is the thread the session continues (thread/resume) rather
	// than starting one; a Reset clears it.
	resume string
	model  string
	inbox  inbox.Inbox
	fresh  bool // Reset: the next Run starts a new thread
	// turns are the lead's: Run's (the first to begin while turn/start
	// awaits its answer, until the answer names another) or the CLI's own.
	turns     *backend.TurnTracker[*TurnEnd]
	announced sync.Once // the lead's session.start
	closeOnce sync.Once
	closeErr  error
}

// Compile-time checks: a Codex session is a backend session whose
// sub-agents can be stopped one by one.
var (
	_ backend.Session        = (*Session)(nil)
	_ backend.AgentCanceller = (*Session)(nil)
)

// New starts `codex app-server` in cfg.Workspace, initializes it and
// starts the session's thread. With cfg.BaseURL or cfg.APIKey set, the CLI
// runs with a throwaway CODEX_HOME whose model provider is Atomic's;
// otherwise the user's own login and config are used untouched.
func New(cfg backend.Config) (*Session, error) {
	bin, err := backend.FindCLI(backend.Codex, cfg.Bin)
	if err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	s := &Session{cfg: cfg, model: cfg.Model, resume: cfg.ResumeCLI, stderr: &backend.Tail{}, exited: make(chan struct{}), interruptWait: interruptTimeout,
		turns: backend.NewTurnTracker[*TurnEnd]()}
	env := userEnv(os.Environ())
	if cfg.BaseURL != "" || cfg.APIKey != "" {
		home, err := writeHome(cfg.CLIHome, cfg.BaseURL, cfg.Model)
		if err != nil {
			return nil, err
		}
		if cfg.CLIHome == "" {
			s.home = home
		}
		env = generatedEnv(os.Environ(), home, cfg.APIKey)
	}
	cmd := exec.Command(bin, "app-server")
	cmd.Dir, cmd.Env, cmd.Stderr = cfg.Workspace, env, s.stderr
	cmd.SysProcAttr = procgroup.Attr()
	cmd.WaitDelay = closeGrace
	reaper.Guard(cmd)
	if s.stdin, err = cmd.StdinPipe(); err == nil {
		s.stdout, err = cmd.StdoutPipe()
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		s.removeHome()
		return nil, fmt.Errorf("codex: start %s app-server: %w", bin, err)
	}
	s.cmd = cmd
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.conn = newConn(s.stdin)
	s.tr = NewTranslator(cfg, s.conn.reply)
	go func() {
		s.conn.read(s.stdout, s.handle)
		_ = cmd.Wait()
		close(s.exited)
	}()
	ctx, cancel := context.WithTimeout(s.ctx, startTimeout)
	defer cancel()
	if err := s.initialize(ctx); err != nil {
		return nil, errors.Join(s.wrap(err), s.Close())
	}
	if err := s.startThread(ctx); err != nil {
		return nil, errors.Join(s.wrap(err), s.Close())
	}
	return s, nil
}

func (s *Session) initialize(ctx context.Context) error {
	_, err := s.conn.call(ctx, "initialize", map[string]any{
		"clientInfo":   map[string]string{"name": "atomic", "title": "Atomic", "version": "0"},
		"capabilities": map[string]any{"experimentalApi": true, "requestAttestation": false},
	})
	if err != nil {
		return err
	}
	return s.conn.notify("initialized", nil)
}

// startThread starts the session's thread (again after a Reset), or
// resumes the earlier one cfg.ResumeCLI names; the thread's id is told to
// cfg.OnCLISession.
func (s *Session) startThread(ctx context.Context) error {
	params := map[string]any{"cwd": s.cfg.Workspace}
	if m := s.Model(); m != "" {
		params["model"] = m
	}
	for k, v := range policy(s.cfg.Gate) {
		params[k] = v
	}
	method := "thread/start"
	s.mu.Lock()
	if s.resume != "" && !s.fresh {
		method, params["threadId"] = "thread/resume", s.resume
	}
	s.mu.Unlock()
	res, err := s.conn.call(ctx, method, params)
	if err != nil {
		return err
	}
	var r struct {
		Thread struct {
			ID    string `json:"id"`
			Model string `json:"model"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.Thread.ID == "" {
		return fmt.Errorf("codex: %s answered without a thread: %s", method, res)
	}
	s.tr.SetLead(r.Thread.ID)
	s.mu.Lock()
	s.thread, s.fresh, s.resume = r.Thread.ID, false, ""
	if s.model == "" {
		s.model = r.Thread.Model
	}
	s.mu.Unlock()
	if s.cfg.OnCLISession != nil {
		s.cfg.OnCLISession(r.Thread.ID)
	}
	return nil
}

// policy maps the gate's mode onto Codex's approval policy and sandbox, so
// the CLI asks Atomic what the gate would ask a human.
func policy(g *permission.Gate) map[string]string {
	if g == nil {
		return nil
	}
	switch g.Mode() {
	case permission.BypassPermissions:
		return map[string]string{"approvalPolicy": "never", "sandbox": "danger-full-access"}
	case permission.Plan:
		return map[string]string{"approvalPolicy": "on-request", "sandbox": "read-only"}
	}
	return map[string]string{"approvalPolicy": "on-request", "sandbox": "workspace-write"}
}

// handle takes every message but responses, on the reading goroutine.
func (s *Session) handle(m inbound) {
	if m.isRequest() {
		ctx, done := s.asks.Add(s.ctx, string(m.ID), firstNonEmpty(m.Params.ThreadID, m.Params.ConversationID))
		s.answers.Add(1)
		go func() {
			defer s.answers.Done()
			defer done()
			_ = s.tr.Answer(ctx, m) // a failed write means the server is gone: Run reports that
		}()
		return
	}
	n := s.tr.Handle(m)
	if n.Interrupt != nil {
		s.stopAgent(n.Interrupt)
	}
	if id := n.LeadTurnStarted; id != "" {
		s.turns.Began(id)
	}
	if e := n.LeadTurnEnded; e != nil {
		s.turns.Ended(e.TurnID, e)
	}
}

// Run starts a turn with prompt and the delivered messages (or, with
// neither, carries a turn the CLI began by itself to its end) and waits for
// the lead's turn/completed. The lead's sub-agents may still run then: they
// end with their own threads.
func (s *Session) Run(ctx context.Context, prompt string) (*Result, error) {
	s.announce()
	s.mu.Lock()
	fresh := s.fresh
	s.mu.Unlock()
	if fresh {
		sctx, cancel := context.WithTimeout(ctx, startTimeout)
		err := s.startThread(sctx)
		cancel()
		if err != nil {
			return nil, s.wrap(err)
		}
	}
	usage0 := s.tr.LeadUsage()
	// A turn the CLI began by itself ends first: it is the lead's answer
	// to what happened (a sub-agent's end), and ours follows it.
	if s.turns.Pending() {
		end, err := s.wait(ctx, false, "")
		if err != nil || (prompt == "" && !s.Pending()) {
			return s.result(end, usage0), err
		}
	}
	text := s.inbox.Compose(prompt)
	if text == "" {
		return &Result{}, nil
	}
	params := map[string]any{"threadId": s.threadID(),
		"input": []map[string]any{{"type": "text", "text": text, "text_elements": []any{}}}}
	if m := s.Model(); m != "" {
		params["model"] = m
	}
	if e := effort(s.cfg.Effort); e != "" {
		params["effort"] = e
	}
	// The reading goroutine can run far ahead of Run: the first turn to
	// begin while the answer is awaited is taken for ours.
	s.turns.Send()
	res, err := s.conn.call(ctx, "turn/start", params)
	var r struct {
		Turn turn `json:"turn"`
	}
	if err == nil {
		if err = json.Unmarshal(res, &r); err == nil && r.Turn.ID == "" {
			err = fmt.Errorf("codex: turn/start answered without a turn: %s", res)
		}
	}
	if err != nil {
		if id := s.turns.Current(); ctx.Err() != nil && id != "" {
			// Cancelled while the answer was awaited, and the turn began:
			// it is ours, and is interrupted as any.
			return s.result(s.interrupt(true, id), usage0), fmt.Errorf("codex: turn interrupted: %w", ctx.Err())
		}
		s.turns.Unsent()
		return nil, s.wrap(err)
	}
	s.turns.Confirm(r.Turn.ID)
	end, err := s.wait(ctx, true, r.Turn.ID)
	return s.result(end, usage0), err
}

// wait waits for the end of Run's turn id (ours) or of the CLI's own. On
// cancellation it interrupts the turn and waits (bounded) for Codex to
// confirm.
func (s *Session) wait(ctx context.Context, ours bool, id string) (*TurnEnd, error) {
	end, ok := s.turns.Wait(ctx, ours, s.conn.done)
	switch {
	case ok && end.Status == "failed":
		return end, fmt.Errorf("codex: turn failed: %s", firstNonEmpty(end.Error, "no reason given"))
	case ok:
		return end, nil
	case ctx.Err() == nil:
		return nil, s.wrap(s.conn.failure())
	}
	if id == "" {
		id = s.turns.Current()
	}
	return s.interrupt(ours, id), fmt.Errorf("codex: turn interrupted: %w", ctx.Err())
}

// interrupt sends turn/interrupt for the lead's turn and waits (bounded)
// for its end; sub-agents end interrupted with it, or here when Codex does
// not confirm in time.
func (s *Session) interrupt(ours bool, turnID string) *TurnEnd {
	ctx, cancel := context.WithTimeout(s.ctx, s.interruptWait)
	defer cancel()
	_, _ = s.conn.call(ctx, "turn/interrupt", map[string]string{"threadId": s.threadID(), "turnId": turnID})
	// Codex keeps the commands an interrupted turn started running in
	// their terminals; an interrupt stops everything.
	defer s.cleanTerminals(s.tr.Threads()...)
	s.asks.WithdrawAll() // the sub-agents' turns end with the lead's
	// The lead's turn ends interrupted; a sub-agent whose own end Codex
	// has not sent yet ends with it, so Run never returns with one still
	// running.
	defer s.tr.EndAll()
	end, _ := s.turns.Wait(ctx, ours, s.conn.done)
	return end
}

// CancelAgent stops one of the CLI's sub-agents (/tasks, an interrupt of
// background work): turn/interrupt on the sub-agent's own thread, whose
// turn then ends interrupted while the lead and the other sub-agents go
// on. A sub-agent whose turn has not begun is interrupted when it begins.
// It returns at once; the stop completes in the background.
func (s *Session) CancelAgent(id string) error {
	st, err := s.tr.Cancel(id)
	if err != nil || st == nil {
		return err
	}
	s.stopAgent(st)
	return nil
}

// stopAgent interrupts a sub-agent's turn off the calling goroutine (the
// response comes through the reader) and waits, bounded, for its end; if
// Codex does not confirm it, the sub-agent is ended as interrupted here.
func (s *Session) stopAgent(st *Stop) {
	s.answers.Add(1)
	go func() {
		defer s.answers.Done()
		ctx, cancel := context.WithTimeout(s.ctx, s.interruptWait)
		defer cancel()
		_, _ = s.conn.call(ctx, "turn/interrupt", map[string]string{"threadId": st.Thread, "turnId": st.Turn})
		s.asks.Withdraw(st.Thread)
		select {
		case <-st.Ended:
		case <-ctx.Done():
			s.tr.EndAgent(st.ID)
		case <-s.conn.done:
			s.tr.EndAgent(st.ID)
		}
		s.cleanTerminals(st.Thread)
	}()
}

// cleanTerminals ends the commands still running in the terminals of
// threads (thread/backgroundTerminals/clean): Codex keeps them after the
// turn that started them was interrupted, and a stopped agent must leave
// nothing at work. Bounded; a CLI that does not know the method is left
// as it is.
func (s *Session) cleanTerminals(threads ...string) {
	ctx, cancel := context.WithTimeout(s.ctx, s.interruptWait)
	defer cancel()
	for _, th := range threads {
		_, _ = s.conn.call(ctx, "thread/backgroundTerminals/clean", map[string]string{"threadId": th})
	}
}

func (s *Session) result(end *TurnEnd, usage0 event.Usage) *Result {
	r := &Result{Turns: 1}
	u := s.tr.LeadUsage()
	r.Usage = event.Usage{InputTokens: u.InputTokens - usage0.InputTokens, OutputTokens: u.OutputTokens - usage0.OutputTokens,
		CacheReadTokens: u.CacheReadTokens - usage0.CacheReadTokens, CacheCreationTokens: u.CacheCreationTokens - usage0.CacheCreationTokens,
		ContextWindow: u.ContextWindow}
	if end == nil {
		r.StopReason = provider.StopOther
		return r
	}
	r.Text = end.Text
	switch end.Status {
	case "completed":
		r.StopReason = provider.StopEndTurn
	case "interrupted":
		r.StopReason = event.StopInterrupted
	default:
		r.StopReason = provider.StopReason(end.Status)
	}
	return r
}

// announce emits the lead's session.start once.
func (s *Session) announce() {
	s.announced.Do(func() { s.cfg.Sink.Emit(s.cfg.SessionStart(backend.Codex, s.Model())) })
}

func (s *Session) threadID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.thread
}

// Deliver queues text for the next turn.
func (s *Session) Deliver(text string) { s.inbox.Deliver(text) }

// DeliverLazy queues a message decided when the next turn starts.
func (s *Session) DeliverLazy(take func() (string, bool), live func() bool) {
	s.inbox.DeliverLazy(take, live)
}

// Pending reports delivered messages, or a turn the CLI began by itself.
func (s *Session) Pending() bool {
	return s.turns.Pending() || s.inbox.Live()
}

// Reset forgets the conversation: the next Run starts a new thread.
func (s *Session) Reset() {
	s.mu.Lock()
	s.fresh = true
	s.inbox.Clear()
	s.mu.Unlock()
	s.turns.Reset()
}

// SetModel switches the model for the following turns.
func (s *Session) SetModel(model string) {
	s.mu.Lock()
	s.model = model
	s.mu.Unlock()
}

// Model is the session's model ("" until the CLI names its own).
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// Close ends the CLI and every process it started: stdin closed, then
// SIGTERM and SIGKILL to its process group after a grace each. Sub-agents
// still running end interrupted.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		_ = s.stdin.Close()
		pg := s.cmd.Process.Pid
		select {
		case <-s.exited:
		case <-time.After(closeGrace):
			_ = procgroup.Signal(pg, syscall.SIGTERM)
			select {
			case <-s.exited:
			case <-time.After(closeGrace):
				_ = procgroup.Signal(pg, syscall.SIGKILL)
				select {
				case <-s.exited:
				case <-time.After(closeGrace):
					_ = s.stdout.Close() // a process outside the group holds the pipe
					<-s.exited
				}
			}
		}
		_ = procgroup.Signal(pg, syscall.SIGKILL) // descendants left in the group
		s.answers.Wait()
		s.tr.EndAll()
		s.removeHome()
	})
	return s.closeErr
}

func (s *Session) removeHome() {
	if s.home != "" {
		if err := os.RemoveAll(s.home); err != nil {
			s.closeErr = fmt.Errorf("codex: remove CODEX_HOME: %w", err)
		}
	}
}

// wrap adds what the CLI said on stderr to an error of its session.
func (s *Session) wrap(err error) error {
	if err == nil {
		return nil
	}
	if t := s.stderr.String(); t != "" {
		return fmt.Errorf("%w (codex stderr: %s)", err, t)
	}
	return err
}

// effort is turn/start's effort for an Atomic level: low, medium and high
// as they are, max as high (xhigh is only some models'; a value the model
// does not advertise fails the turn). Empty: the CLI's own setting.
func effort(e provider.Effort) string {
	if e == provider.EffortMax {
		return string(provider.EffortHigh)
	}
	return string(e)
}
