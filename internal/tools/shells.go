package tools

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/inbox"
	"github.com/atomic-agent/atomic/internal/procgroup"
)

// Background shell limits.
const (
	// ShellOutputKept is how much of a background shell's output is kept
	// in memory: the last 256 KiB (a ring; older output is counted and
	// said to be lost when read).
	ShellOutputKept = 256 << 10
	// shellLineEvery throttles shell.output: at most one per shell per
	// interval, the latest line winning.
	shellLineEvery = 250 * time.Millisecond
	// shellTailBytes is how much of the output's end goes into shell.end
	// and the notification that wakes the starter.
	shellTailBytes = 4000
)

// ShellsConfig says where the background shells' events and ends go.
type ShellsConfig struct {
	SessionID string
	// Sink receives shell.start, shell.output and shell.end.
	Sink event.Sink
	Now  func() time.Time
	// Register, when set, is told of each shell before its shell.start:
	// who started it and how to stop it (the run's owner registry, which
	// /tasks and the completion gate read). stop waits for the end.
	Register func(id, parent string, stop func() error, done <-chan struct{})
	// Ended, when set, is called once for each shell that exited on its
	// own (not one that was stopped), after its shell.end and before
	// Running stops counting it, to wake the agent that started it. It
	// must not block.
	Ended func(ShellEnded)
}

// ShellEnded is a background shell that exited, for its starter.
type ShellEnded struct {
	ID, Parent, Command string
	ExitCode            int
	Tail                string
	// Claim reports, true once, whether the end is still to be told: a
	// bash_output that saw the end claims it too, so the agent hears of
	// it exactly once. Claimed reports it without claiming; OnClaim has
	// a func run once it is claimed, by either (at once if it was).
	Claim   func() bool
	Claimed func() bool
	OnClaim func(func())
}

// Notice is the message that tells the starter of e.
func (e ShellEnded) Notice() string {
	tail := e.Tail
	if tail == "" {
		tail = "(no output)"
	}
	return fmt.Sprintf("<shell-notification>\nBackground shell %s (%s) exited with status %d.\nOutput (end):\n%s\n</shell-notification>",
		e.ID, e.Command, e.ExitCode, tail)
}

// Shells runs a run's background shells: bash run_in_background starts
// them, bash_output reads them, kill_shell stops them, and the end of an
// agent (StopOwnedBy) or of the run (StopAll) stops what is left. Each
// runs in a process group of its own under the same sandbox and watchdog
// as a foreground command, so stopping it stops everything it started.
type Shells struct {
	cfg   ShellsConfig
	grace time.Duration

	mu     sync.Mutex
	next   int
	byID   map[string]*shell
	follow map[string]*Set // agents whose shell tools wait for their first shell
	closed bool
}

// NewShells returns an empty registry.
func NewShells(cfg ShellsConfig) *Shells {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sink == nil {
		cfg.Sink = event.Discard
	}
	return &Shells{cfg: cfg, grace: bashKillGrace, byID: map[string]*shell{}}
}

// shell is one background command.
type shell struct {
	id, parent, command string
	pgid                int
	done                chan struct{}
	// guard puts back a repository's hooks and config the command
	// changed, as after a foreground command, and says so.
	guard func() string

	mu       sync.Mutex
	out      ring
	read     int64 // offset bash_output has read up to
	line     string
	sentLine string
	lastSent time.Time
	timer    *time.Timer
	stopped  string // why it was stopped, once it was
	ended    bool
	exitCode int
	told     inbox.Claim // the end was told (bash_output or the notification)
}

// Taken marks shell id as used (a resumed session's): new shells are
// numbered after it, so none takes an old one's id.
func (s *Shells) Taken(id string) {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "shell-"))
	if err != nil || !strings.HasPrefix(id, "shell-") {
		return
	}
	s.mu.Lock()
	s.next = max(s.next, n)
	s.mu.Unlock()
}

// start runs command in dir for agent parent (its bash call callID) and
// returns the shell's id.
func (s *Shells) start(ws Workspace, dir, command, description, parent, callID string) (string, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return "", errors.New("background shells are stopped: the run is ending")
	}
	s.next++
	id := "shell-" + strconv.Itoa(s.next)
	s.mu.Unlock()
	cmd, pr, err := startShell(ws, dir, command)
	if err != nil {
		return "", err
	}
	sh := &shell{id: id, parent: parent, command: command, pgid: cmd.Process.Pid, done: make(chan struct{}), guard: ws.Sandbox.Check}
	sh.out.max = ShellOutputKept
	s.mu.Lock()
	s.byID[id] = sh
	set := s.follow[parent]
	delete(s.follow, parent)
	s.mu.Unlock()
	// Before this bash call returns, so the agent's next request has them.
	set.Offer("bash_output", "kill_shell")
	if s.cfg.Register != nil {
		s.cfg.Register(id, parent, func() error { return s.stop(sh, "stopped") }, sh.done)
	}
	s.emit(event.ShellStart, sh, callID, event.ShellStartData{Command: command, Description: description})
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		s.copy(sh, pr)
	}()
	go s.wait(sh, cmd, pr, copied)
	return id, nil
}

// copy reads sh's output into its ring until the pipe closes. Its buffer
// is held for the shell's life: 8 KiB, not io.Copy's 32, as most shells
// are quiet and a chatty one is read in more calls.
func (s *Shells) copy(sh *shell, pr *os.File) {
	buf := make([]byte, 8<<10)
	for {
		n, err := pr.Read(buf)
		if n > 0 {
			sh.mu.Lock()
			sh.out.write(buf[:n])
			if line := lastLine(buf[:n]); line != "" {
				sh.line = line
			}
			s.lineLocked(sh)
			sh.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// lineLocked reports sh's last line in a shell.output, at most once per
// shellLineEvery: a later line waits for the interval's end.
func (s *Shells) lineLocked(sh *shell) {
	if sh.ended || sh.timer != nil || sh.line == sh.sentLine {
		return
	}
	if wait := shellLineEvery - time.Since(sh.lastSent); wait > 0 {
		sh.timer = time.AfterFunc(wait, func() {
			sh.mu.Lock()
			defer sh.mu.Unlock()
			sh.timer = nil
			s.lineLocked(sh)
		})
		return
	}
	sh.sentLine, sh.lastSent = sh.line, time.Now()
	s.emit(event.ShellOutput, sh, "", event.ShellOutputData{Line: sh.line})
}

// wait reaps sh's command, ends what it left in its group, and reports
// its end: shell.end, then the starter's wake-up unless it was stopped.
func (s *Shells) wait(sh *shell, cmd *exec.Cmd, pr *os.File, copied <-chan struct{}) {
	waitErr := cmd.Wait()
	killGroup(sh.pgid, s.grace) // whatever it left running in its group
	select {
	case <-copied:
	case <-time.After(bashDrain):
		_ = pr.SetReadDeadline(time.Now())
		<-copied
	}
	pr.Close()
	code := 0
	if exitErr := (*exec.ExitError)(nil); errors.As(waitErr, &exitErr) {
		code = exitErr.ExitCode()
	} else if waitErr != nil {
		code = -1
	}
	sh.mu.Lock()
	sh.ended, sh.exitCode = true, code
	if sh.timer != nil {
		sh.timer.Stop()
		sh.timer = nil
	}
	tail, _ := sh.out.since(sh.out.total - shellTailBytes)
	if line := sh.guard(); line != "" {
		tail = append(tail, "\n"+line...)
	}
	end := event.ShellEndData{ExitCode: code, Tail: string(tail)}
	if sh.stopped != "" {
		end.Interrupted, end.Reason = true, sh.stopped
	}
	s.emit(event.ShellEnd, sh, "", end)
	sh.mu.Unlock()
	// Before done: whoever waits while Running counts it finds the
	// notice queued once it no longer does.
	if !end.Interrupted && s.cfg.Ended != nil {
		s.cfg.Ended(ShellEnded{ID: sh.id, Parent: sh.parent, Command: sh.command, ExitCode: code, Tail: end.Tail,
			Claim: sh.told.Take, Claimed: sh.told.Taken, OnClaim: sh.told.Then})
	}
	close(sh.done)
}

// lastLine is lifecycle.LastLine of b, converting only the line it
// returns: a chatty shell's every read is not copied into a string.
func lastLine(b []byte) string {
	for len(b) > 0 {
		i := bytes.LastIndexByte(b, '\n')
		if line := bytes.TrimSpace(b[i+1:]); len(line) > 0 {
			return string(line)
		}
		if i < 0 {
			break
		}
		b = b[:i]
	}
	return ""
}

func (s *Shells) emit(typ event.Type, sh *shell, callID string, data any) {
	s.cfg.Sink.Emit(event.Event{Type: typ, Time: s.cfg.Now(), SessionID: s.cfg.SessionID,
		AgentID: sh.id, ParentAgentID: sh.parent, ToolCallID: callID, Data: data})
}

// stop ends sh (SIGTERM to its group, SIGKILL after the grace period) and
// waits for its end; why is what its record says.
func (s *Shells) stop(sh *shell, why string) error {
	sh.mu.Lock()
	if !sh.ended && sh.stopped == "" {
		sh.stopped = why
	}
	ended := sh.ended
	sh.mu.Unlock()
	if ended {
		return nil
	}
	_ = procgroup.Signal(sh.pgid, syscall.SIGTERM)
	select {
	case <-sh.done:
	case <-time.After(s.grace):
		_ = procgroup.Signal(sh.pgid, syscall.SIGKILL)
		<-sh.done
	}
	return nil
}

// lookup finds shell id of agent: an agent reads and stops only the
// shells it started. The error names the ones it has.
func (s *Shells) lookup(id, agent string) (*shell, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sh, ok := s.byID[id]; ok && sh.parent == agent {
		return sh, nil
	}
	var mine []string
	for k, sh := range s.byID {
		if sh.parent == agent {
			mine = append(mine, k)
		}
	}
	if len(mine) == 0 {
		return nil, fmt.Errorf("no background shell %q: you have started none", id)
	}
	slices.Sort(mine)
	return nil, fmt.Errorf("no background shell %q: yours are %v", id, mine)
}

// Follow holds bash_output and kill_shell in agent's set (when it offers
// bash) until agent starts its first background shell, then offers them:
// an agent that never starts one is not sent their definitions on every
// request. Held, a call to one still works (no such shell).
func (s *Shells) Follow(agent string, set *Set) {
	if s == nil || set == nil || !set.Offered("bash") {
		return
	}
	set.HoldBack("bash_output", "kill_shell")
	set.Hold(NewBashOutput(s)) // no-op where it was just held back
	set.Hold(NewKillShell(s))
	s.mu.Lock()
	if s.follow == nil {
		s.follow = map[string]*Set{}
	}
	s.follow[agent] = set
	s.mu.Unlock()
}

// StopOwnedBy stops every shell agent started that still runs (its agent
// ended) and waits for their ends.
func (s *Shells) StopOwnedBy(agent, why string) {
	if s != nil {
		s.mu.Lock()
		delete(s.follow, agent)
		s.mu.Unlock()
	}
	s.stopWhere(func(sh *shell) bool { return sh.parent == agent }, why)
}

// StopAll stops every running shell and waits for their ends; close also
// refuses new ones (the run is ending).
func (s *Shells) StopAll(why string, close bool) {
	if s == nil {
		return
	}
	if close {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
	}
	s.stopWhere(func(*shell) bool { return true }, why)
}

func (s *Shells) stopWhere(keep func(*shell) bool, why string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	var list []*shell
	for _, sh := range s.byID {
		if keep(sh) {
			list = append(list, sh)
		}
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, sh := range list {
		wg.Go(func() { _ = s.stop(sh, why) })
	}
	wg.Wait()
}

// Running counts agent's shells still running ("": everyone's).
func (s *Shells) Running(agent string) int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	list := make([]*shell, 0, len(s.byID))
	for _, sh := range s.byID {
		if agent == "" || sh.parent == agent {
			list = append(list, sh)
		}
	}
	s.mu.Unlock()
	n := 0
	for _, sh := range list {
		select {
		case <-sh.done:
		default:
			n++
		}
	}
	return n
}

// ShellRead is what bash_output returns.
type ShellRead struct {
	Output   string
	Lost     int64 // bytes written since the last read no longer kept
	Running  bool
	ExitCode int
	Stopped  string // why it was stopped, if it was
}

// read returns sh's output since the last read and its status; once it
// reports the end, the end counts as told.
func (sh *shell) readNew() ShellRead {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	out, lost := sh.out.since(sh.read)
	sh.read = sh.out.total
	r := ShellRead{Output: string(out), Lost: lost, Running: !sh.ended, ExitCode: sh.exitCode, Stopped: sh.stopped}
	if sh.ended {
		sh.told.Take()
	}
	return r
}
