package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/commands"
	"github.com/atomic-agent/atomic/internal/memory"
	"github.com/atomic-agent/atomic/internal/runtime"
)

// DefaultQuitTimeout bounds how long quitting waits for agents to end.
const DefaultQuitTimeout = 5 * time.Second

// Options run the chat UI against a runtime.
type Options struct {
	Runtime *runtime.Runtime
	// Approvals is the queue the run's permission gate asks through.
	Approvals *Approvals
	Team      TeamControl
	Subject   func(tool string, input json.RawMessage) string
	Welcome   []string
	// Past is the resumed session shown before the first frame (nil: a
	// new session).
	Past *Past
	// Memory is what /memory shows; Commands the custom slash commands.
	Memory   *memory.Memory
	Commands *commands.Set
	// Info is Config.Info.
	Info func() SessionInfo
	// Session is Config.Session.
	Session Session
	// RenderCommand is Config.RenderCommand.
	RenderCommand func(ctx context.Context, c commands.Command, args string) (string, error)
	// Skills is Config.Skills.
	Skills Skills
	// Input features: Config's fields of the same names.
	Workspace   string
	Files       func(ctx context.Context, limit int) ([]string, error)
	Attach      func(ctx context.Context, path string) (string, error)
	Shell       func(ctx context.Context, command string) (string, error)
	Modes       Modes
	LoadHistory func() []string
	In          io.Reader
	Out         io.Writer
	// QuitTimeout bounds the wait for agents on quit (0: 5s).
	QuitTimeout time.Duration
	// ProgramOptions are extra Bubble Tea options (tests set a window size).
	ProgramOptions []tea.ProgramOption
	// AltScreen is Config.AltScreen (false: the transcript goes to the
	// terminal's scrollback).
	AltScreen bool
	// ResumeCommand is the command that resumes the session, printed on
	// the way out when a prompt was sent or the session was resumed; ""
	// (or nil) when the session is not stored.
	ResumeCommand func() string
	// Notes are warnings that arise during the run (an MCP server that
	// failed or is slow), each shown as a note.
	Notes <-chan string
}

// noteMsg is a warning to show as a note.
type noteMsg string

// forwardNotes sends each note to the program until ctx ends.
func forwardNotes(ctx context.Context, notes <-chan string, send func(tea.Msg)) {
	for {
		select {
		case n := <-notes:
			send(noteMsg(n))
		case <-ctx.Done():
			return
		}
	}
}

// Run shows the chat until the user quits or ctx ends. It serves the
// runtime meanwhile, feeds its events to the screen in frame-sized batches,
// and on the way out denies open approvals and stops the run: every agent
// cancelled, waited for up to QuitTimeout (runtime.Run.Stop).
func Run(ctx context.Context, o Options) error {
	rt := o.Runtime
	if o.QuitTimeout <= 0 {
		o.QuitTimeout = DefaultQuitTimeout
	}
	// The run outlives ctx: on the way out it is stopped, with a grace.
	run := rt.Start(context.WithoutCancel(ctx))
	var prompted atomic.Bool
	m := New(Config{Backend: promptedBackend{runBackend{rtBackend{rt}, run}, &prompted}, AltScreen: o.AltScreen, Approvals: o.Approvals, Team: o.Team, Worktrees: rt.Manager(), Subject: o.Subject, Welcome: o.Welcome, Past: o.Past,
		Memory: o.Memory, Commands: o.Commands, RenderCommand: o.RenderCommand, Skills: o.Skills, Info: o.Info,
		Workspace: o.Workspace, Files: o.Files, Attach: o.Attach, Shell: o.Shell, Modes: o.Modes, LoadHistory: o.LoadHistory, Session: o.Session})
	f := newFeed()
	// The trees render the reducer's records (Records), and the view may
	// lose streamed text under a flood and resync from them (Coalesce).
	sub := rt.Bus().SubscribeWith(f.Emit, bus.Options{Name: "tui", Policy: bus.Coalesce, Records: true})
	defer sub.Close()
	var approvals <-chan struct{}
	if o.Approvals != nil {
		approvals = o.Approvals.Changed()
	}
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	if o.Out != nil {
		opts = append(opts, tea.WithOutput(o.Out))
	}
	p := tea.NewProgram(m, append(opts, o.ProgramOptions...)...)
	prePrint(m, o.Out)

	feedCtx, stopFeed := context.WithCancel(context.Background())
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		f.run(feedCtx, p.Send, approvals, frameInterval)
	}()

	go forwardNotes(feedCtx, o.Notes, p.Send)
	final, err := p.Run()
	switch {
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		err = nil // SIGTERM or the caller's cancel: a normal way out
	case errors.Is(err, tea.ErrInterrupted):
		err = nil // SIGINT from outside the terminal: quit like ctrl+c twice
	}
	stopFeed()
	<-fed
	if o.Approvals != nil {
		o.Approvals.Close()
	}
	err = errors.Join(err, run.Stop(o.QuitTimeout))
	if fm, ok := final.(*Model); ok && fm.switchTo != "" && err == nil {
		return &SwitchSession{ID: fm.switchTo}
	}
	if o.ResumeCommand != nil && (prompted.Load() || o.Past != nil) {
		if line := o.ResumeCommand(); line != "" {
			out := o.Out
			if out == nil {
				out = os.Stdout // Bubble Tea's default output
			}
			fmt.Fprintf(out, "To resume this session: %s\n", line)
		}
	}
	return err
}

// prePrint writes what is already final to a terminal out (os.Stdout
// when nil) before the program draws its first frame.
func prePrint(m *Model, out io.Writer) {
	if out == nil {
		out = os.Stdout
	}
	f, ok := out.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return // the first WindowSizeMsg sizes the model; prints follow it
	}
	w, h, err := term.GetSize(f.Fd())
	if err != nil || w <= 0 || h <= 0 {
		return
	}
	m.sb.profile, m.sb.hasProfile = colorprofile.Detect(f, os.Environ()), true
	_, _ = io.WriteString(out, m.preprint(w, h))
}

// promptedBackend notes that a prompt was sent: a session with none is
// not worth resuming.
type promptedBackend struct {
	Backend
	sent *atomic.Bool
}

func (b promptedBackend) Submit(prompt string) {
	b.sent.Store(true)
	b.Backend.Submit(prompt)
}

func (b promptedBackend) SubmitAtStart(prompt string, start func()) {
	b.sent.Store(true)
	submitAtStart(b.Backend, prompt, start)
}
