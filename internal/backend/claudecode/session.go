// Package claudecode runs a lead agent in Claude Code: one long-lived
// `claude -p` process speaking stream-json on stdin and stdout, whose
// messages, tool calls and own sub-agents (its Agent tool) are translated to
// SPEC §1 events, whose approvals go through Atomic's permission gate over
// the CLI's control protocol (--permission-prompt-tool stdio), and which is
// interrupted with the same protocol's interrupt request.
package claudecode

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/inbox"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Package is the npm package that installs the CLI, for the message a
// missing binary gets.
const Package = "@anthropic-ai/claude-code"

// Bounds of the shutdown and interrupt paths: how long the CLI gets to
// finish the interrupted turn, and to exit after stdin closes and again
// after SIGTERM.
const (
	interruptGrace = 15 * time.Second
	exitGrace      = 2 * time.Second
)

// The lead's turns here are counted results, not backend.TurnTracker (which
// Codex, OpenCode and Copilot share), because Claude Code's stream does not
// fit the tracker's begin/end pairs:
//   - Run writes its prompt at once, even while a turn of the CLI's own
//     runs (the CLI queues it), so it waits for need results, not for "the
//     next turn to begin": the tracker would have Run wait for the CLI's
//     turn to end before sending, a slower prompt and another behaviour.
//   - A background task ending after the lead's last request of a turn makes
//     the CLI run one more turn after that turn's result (owed), unless a
//     later request of the same turn carries it (system/status requesting);
//     Pending must hold from the result on, before that turn's system/init.
//     The tracker's Woke refuses while a turn runs, as the other CLIs hand
//     such a result over inside the turn.
//   - After an interrupt the CLI starts no turn for the tasks it stopped
//     (quiet), and the results of turns abandoned when the interrupt was not
//     confirmed in time are dropped by count (stale): neither result nor
//     system/init names its turn, so only the count tells them apart.
// A result count, owed and quiet in the tracker would serve this one CLI.

// wake is a turn the CLI began by itself (a background sub-agent's
// completion woke the lead) that no Run has carried yet.
type wake int

const (
	noWake wake = iota
	wakeRunning
	wakeEnded
)

// Session is a backend.Session run by one claude process.
type Session struct {
	cfg  backend.Config
	tr   *translator
	proc *process
	// ctx bounds the approvals in flight; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	model string
	// resume is the CLI's conversation the process continues (--resume);
	// Reset clears it, as it clears the conversation.
	resume  string
	inbox   inbox.Inbox
	wait    *turnWait
	wake    wake
	wakeRes *turnResult
	// owed: a background task ended during a Run's turn and the lead has
	// sent no request since, so the CLI owes it a turn of its own once
	// this one ends.
	owed  bool
	stale int // results of turns abandoned after an interrupt, to drop
	// quiet: the lead was interrupted and no prompt has followed. The
	// sub-agents the interrupt stopped start no turn of the lead's (the
	// CLI keeps their notices for its next prompt), so their ends make
	// nothing pending.
	quiet bool
	// answers are the control requests whose answer something waits for,
	// by request id; the reader closes the channel on the answer.
	answers   map[string]chan struct{}
	approvals map[string]context.CancelFunc
	closed    bool
	seq       int
}

// turnWait is a Run waiting for need results.
type turnWait struct {
	need int
	last *turnResult
	done chan *turnResult // receives the last result, or nil if the process ended
}

var _ backend.Session = (*Session)(nil)

// New starts the CLI (cfg.Bin, else claude on PATH) in cfg.Workspace. The
// process lives until Close.
func New(cfg backend.Config) (*Session, error) {
	cfg = cfg.WithDefaults()
	bin, err := backend.FindCLI(Backend, cfg.Bin)
	if err != nil {
		return nil, err
	}
	cfg.Bin = bin
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{cfg: cfg, model: cfg.Model, resume: cfg.ResumeCLI, ctx: ctx, cancel: cancel,
		approvals: map[string]context.CancelFunc{}, answers: map[string]chan struct{}{}}
	s.tr = newTranslatorFor(cfg)
	if err := s.start(); err != nil {
		cancel()
		return nil, err
	}
	return s, nil
}

// args is the command line: stream-json both ways, text streamed as the
// model writes it (stream_event lines), every permission
// decision put to us over stdio in the CLI's default mode (so our gate,
// not the user's Claude settings, decides); with resume, the CLI's earlier
// conversation of that id continues (it keeps the transcript under its
// config dir).
func (s *Session) args(model, resume string) []string {
	a := []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--include-partial-messages", "--permission-prompt-tool", "stdio", "--permission-mode", "default"}
	if model != "" {
		a = append(a, "--model", model)
	}
	if resume != "" {
		a = append(a, "--resume", resume)
	}
	if s.cfg.FallbackModel != "" {
		a = append(a, "--fallback-model", s.cfg.FallbackModel)
	}
	if s.cfg.Effort != "" {
		// Claude Code takes Atomic's four levels as they are.
		a = append(a, "--effort", string(s.cfg.Effort))
	}
	return a
}

// anthropicKeys are the credentials Claude Code may use; every other
// provider key (OPENAI_API_KEY…) and Atomic's own secrets stay out of its
// environment (tools.EnvFor).
var anthropicKeys = []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"}

// env is the process environment: the user's without the secrets Claude
// Code does not use, with Atomic's provider settings in the CLI's own
// terms when given. The CLI never updates itself under a run, and pointed
// at another server it sends nothing else to Anthropic.
func (s *Session) env(model string) []string {
	return s.envFrom(os.Environ(), model)
}

func (s *Session) envFrom(environ []string, model string) []string {
	env := append(tools.EnvFor(environ, anthropicKeys...), "DISABLE_AUTOUPDATER=1")
	if s.cfg.BaseURL != "" {
		env = append(env, "ANTHROPIC_BASE_URL="+s.cfg.BaseURL, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	}
	if s.cfg.APIKey != "" {
		env = append(env, "ANTHROPIC_API_KEY="+s.cfg.APIKey)
	}
	if model != "" {
		env = append(env, "ANTHROPIC_MODEL="+model)
	}
	return env
}

func (s *Session) start() error {
	s.mu.Lock()
	model, resume := s.model, s.resume
	s.mu.Unlock()
	p, err := startProcess(s.cfg.Bin, s.args(model, resume), s.env(model), s.cfg.Workspace)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	go s.read(p)
	// The SDK's handshake; the CLI answers with its commands and models.
	return p.writeJSON(map[string]any{"type": "control_request", "request_id": "atomic-init",
		"request": map[string]string{"subtype": "initialize"}})
}

// read translates the process's stdout until it ends, then reports the end
// to a waiting Run and ends the sub-agents the process took with it.
func (s *Session) read(p *process) {
	defer close(p.readDone)
	sc := bufio.NewScanner(p.stdout)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		st, err := s.tr.feed(sc.Bytes())
		if err != nil {
			s.cfg.Sink.Emit(event.Event{Type: event.Error, Time: s.cfg.Now(), SessionID: s.cfg.SessionID,
				AgentID: s.cfg.AgentID, Data: event.ErrorData{Message: err.Error()}})
			continue
		}
		s.handle(p, st)
	}
	p.stdout.Close()
	<-p.exited
	s.mu.Lock()
	closing := s.closed || p.stopping.Load()
	if w := s.wait; w != nil {
		s.wait = nil
		w.done <- nil
	}
	s.wake, s.wakeRes = noWake, nil
	s.mu.Unlock()
	if closing {
		s.tr.endOpen(true, "cancelled: the session was closed")
	} else {
		s.tr.endOpen(false, "claude exited: "+p.exitError().Error())
	}
}

func (s *Session) handle(p *process, st step) {
	switch {
	case st.result != nil:
		s.mu.Lock()
		switch w := s.wait; {
		case s.stale > 0:
			s.stale--
		case w != nil:
			w.need--
			w.last = st.result
			owed := s.owed
			s.owed = false
			switch {
			case w.need > 0 && owed:
				w.need++ // the owed turn is one more to wait for
			case w.need <= 0:
				s.wait = nil
				if owed {
					// Pending at once, so the caller runs the owed turn
					// rather than taking this result for the end.
					s.wake = wakeRunning
				}
				w.done <- st.result
			}
		default:
			s.wake, s.wakeRes = wakeEnded, st.result
		}
		s.mu.Unlock()
	case st.leadAsks:
		s.mu.Lock()
		if s.wait != nil {
			s.owed = false // the request carries the ended task's result
		}
		s.mu.Unlock()
	case st.bgDone, st.leadBegan:
		// A turn nobody asked for: the CLI wakes its lead when a
		// background agent ends while the lead is idle, or after the turn
		// it ended in when the lead asked nothing more in that turn.
		s.mu.Lock()
		switch {
		case s.quiet:
			// Ended by the interrupt: the CLI starts no turn for it. (A
			// turn it starts anyway is carried once its result comes.)
		case s.wait != nil && s.stale == 0:
			s.owed = s.owed || st.bgDone
		case s.wait == nil && s.stale == 0 && s.wake != wakeRunning && (st.bgDone || s.wake == wakeEnded):
			s.wake = wakeRunning
		}
		s.mu.Unlock()
	case st.answered != "":
		s.mu.Lock()
		if c := s.answers[st.answered]; c != nil {
			delete(s.answers, st.answered)
			close(c)
		}
		s.mu.Unlock()
	case st.ask != nil:
		ctx, cancel := context.WithCancel(s.ctx)
		s.mu.Lock()
		s.approvals[st.ask.requestID] = cancel
		s.mu.Unlock()
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			resp := s.tr.decide(ctx, s.cfg.Gate, st.ask)
			s.mu.Lock()
			delete(s.approvals, st.ask.requestID)
			s.mu.Unlock()
			cancel()
			_ = p.writeLine(resp) // a process that went away needs no answer
		}()
	case st.cancel != "":
		s.mu.Lock()
		if c := s.approvals[st.cancel]; c != nil {
			c()
		}
		s.mu.Unlock()
	}
}

// Run sends prompt and what was delivered as one user message and waits
// for the turn's result; with nothing to send it carries a turn the CLI
// began by itself. Cancelling ctx interrupts the turn.
func (s *Session) Run(ctx context.Context, prompt string) (*backend.Result, error) {
	text := s.takeInbox(prompt)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("claude-code: session closed")
	}
	p := s.proc
	need := 0
	switch s.wake {
	case wakeEnded:
		res := s.wakeRes
		s.wake, s.wakeRes = noWake, nil
		if text == "" {
			s.mu.Unlock()
			return result(res)
		}
	case wakeRunning:
		need++
		s.wake = noWake
	}
	if text != "" {
		need++
	}
	if need == 0 {
		s.mu.Unlock()
		return &backend.Result{}, nil
	}
	select {
	case <-p.readDone:
		s.mu.Unlock()
		return nil, fmt.Errorf("claude-code: %w", p.exitError())
	default:
	}
	w := &turnWait{need: need, done: make(chan *turnResult, 1)}
	s.wait = w
	if text != "" {
		s.quiet = false // a prompt: the lead works again
	}
	s.mu.Unlock()
	if text != "" {
		msg := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text},
			"parent_tool_use_id": nil, "session_id": ""}
		if err := p.writeJSON(msg); err != nil {
			s.mu.Lock()
			if s.wait == w {
				s.wait = nil
			}
			s.mu.Unlock()
			return nil, fmt.Errorf("claude-code: sending the prompt: %w", err)
		}
	}
	select {
	case res := <-w.done:
		if res == nil {
			return nil, fmt.Errorf("claude-code: %w", p.exitError())
		}
		return result(res)
	case <-ctx.Done():
	}
	_ = s.interrupt(p, nil)
	timer := time.NewTimer(interruptGrace)
	defer timer.Stop()
	var res *turnResult
	select {
	case res = <-w.done:
	case <-timer.C:
		s.mu.Lock()
		if s.wait == w {
			s.wait = nil
			s.stale += w.need
		}
		res = w.last
		s.mu.Unlock()
	}
	r, _ := result(res)
	return r, fmt.Errorf("claude-code: interrupted: %w", ctx.Err())
}

// result is Run's answer for a result line: an error result (the API
// failed, a limit was hit) is an error naming what the CLI said.
func result(res *turnResult) (*backend.Result, error) {
	if res == nil {
		return &backend.Result{}, nil
	}
	r := &backend.Result{Text: res.Text, StopReason: provider.StopReason(res.StopReason),
		Turns: res.NumTurns, Usage: res.Usage}
	if res.IsError {
		why := strings.Join(res.Errors, "; ")
		if why == "" {
			why = res.Text
		}
		return r, fmt.Errorf("claude-code: the turn failed: %s", why)
	}
	return r, nil
}

func (s *Session) takeInbox(prompt string) string {
	parts := []string{}
	if prompt != "" {
		parts = append(parts, prompt)
	}
	for _, t := range s.inbox.Take() {
		if t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Deliver queues text for the next Run's user message.
func (s *Session) Deliver(text string) { s.inbox.Deliver(text) }

// DeliverLazy queues a message whose text is taken when the next Run
// builds its user message.
func (s *Session) DeliverLazy(take func() (string, bool), live func() bool) {
	s.inbox.DeliverLazy(take, live)
}

// Pending reports delivered messages, or a turn the CLI began (or ended)
// by itself that no Run has carried yet.
func (s *Session) Pending() bool {
	s.mu.Lock()
	woke := s.wake != noWake
	s.mu.Unlock()
	return woke || s.inbox.Live()
}

// Reset clears the conversation: the CLI keeps its context for the
// process's life, so it is restarted (sub-agent ids keep counting).
func (s *Session) Reset() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.inbox.Clear()
	s.wake, s.wakeRes, s.stale, s.owed, s.quiet = noWake, nil, 0, false, false
	s.resume = ""
	p := s.proc
	s.mu.Unlock()
	p.stop()
	<-p.readDone
	p.wg.Wait()
	if err := s.start(); err != nil {
		s.cfg.Sink.Emit(event.Event{Type: event.Error, Time: s.cfg.Now(), SessionID: s.cfg.SessionID,
			AgentID: s.cfg.AgentID, Data: event.ErrorData{Message: "restarting claude: " + err.Error()}})
	}
}

// SetModel switches the model: at once over the control protocol, and for
// any restart.
func (s *Session) SetModel(model string) {
	s.mu.Lock()
	s.model = model
	s.seq++
	id := "atomic-model-" + strconv.Itoa(s.seq)
	p := s.proc
	s.mu.Unlock()
	_ = p.writeJSON(map[string]any{"type": "control_request", "request_id": id,
		"request": map[string]string{"subtype": "set_model", "model": model}})
}

// Model is the model given to the CLI ("" when the CLI chooses).
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// Close ends the process and everything it started, and waits for the
// session's goroutines. Sub-agents still open end as cancelled.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	p := s.proc
	s.mu.Unlock()
	s.cancel()
	p.stop()
	<-p.readDone
	p.wg.Wait()
	return nil
}

// CancelAgent stops one of the CLI's sub-agents (/tasks, an interrupt of
// background work) with the CLI's own stop_task request; its
// task_notification (stopped) then ends it as interrupted.
func (s *Session) CancelAgent(id string) error {
	v, ok := s.tr.tasks.Load(id)
	if !ok {
		return fmt.Errorf("claude-code: no sub-agent %q was started by this session", id)
	}
	s.mu.Lock()
	s.seq++
	rid := "atomic-stop-" + strconv.Itoa(s.seq)
	p := s.proc
	s.mu.Unlock()
	return p.writeJSON(map[string]any{"type": "control_request", "request_id": rid,
		"request": map[string]string{"subtype": "stop_task", "task_id": v.(string)}})
}

// PID is the CLI's process id, which is also its process group id.
func (s *Session) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc.cmd.Process.Pid
}
