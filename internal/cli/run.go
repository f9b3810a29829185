package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/config"
	"github.com/atomic-agent/atomic/internal/headless"
	"github.com/atomic-agent/atomic/internal/memory"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/store"
	"github.com/atomic-agent/atomic/internal/tools"
)

const runSynopsis = `Usage: atomic run -p PROMPT [flags]
       atomic -p PROMPT [flags], atomic exec PROMPT [flags]

Runs one prompt without the chat UI (the prompt may also come on stdin) and
prints the answer as text, a JSON result or a stream of JSON events.
`

func runHeadless(ctx context.Context, args []string, ios IOStreams) int {
	fs := flag.NewFlagSet("atomic run", flag.ContinueOnError)
	fs.SetOutput(ios.Err)
	var c common
	c.register(fs)
	var prompt, format, inputFormat string
	fs.StringVar(&prompt, "p", "", "the prompt (default: read from stdin)")
	fs.StringVar(&prompt, "prompt", "", "the prompt (default: read from stdin)")
	fs.Bool("print", false, "Claude Code's print mode: the prompt is the arguments, else stdin (atomic -p is atomic run)")
	fs.StringVar(&format, "output-format", headless.FormatText, "text, json, stream-json (Atomic's events) or claude-stream-json (Claude Code's stream-json: system, assistant, user and result messages)")
	fs.StringVar(&inputFormat, "input-format", "text", "text (one prompt) or stream-json (Claude Code's user messages on stdin, one JSON object a line, each a turn; the run ends with stdin)")
	if code, ok := c.parse(fs, args, ios, runSynopsis); !ok {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(ios.Err, "atomic: %v\n", err)
		return 2
	}
	streamIn := inputFormat == headless.FormatInputStreamJSON
	switch {
	case inputFormat != "text" && !streamIn:
		return fail(fmt.Errorf("unknown --input-format %q (want text or stream-json)", inputFormat))
	case streamIn && (prompt != "" || fs.NArg() > 0):
		return fail(errors.New("--input-format stream-json: the prompts come on stdin, give none with -p or as arguments"))
	case streamIn:
		prompt = "(stream-json input)" // not read here: the turns come on stdin once the run is open
	}
	if fs.NArg() > 0 {
		if prompt != "" {
			return fail(fmt.Errorf("unexpected arguments %q: give the prompt with -p or on stdin", fs.Args()))
		}
		prompt = strings.Join(fs.Args(), " ")
	}
	if err := headless.ValidFormat(format); err != nil {
		return fail(err)
	}
	if prompt == "" && !ios.StdinIsTerminal && ios.In != nil {
		b, err := io.ReadAll(ios.In)
		if err != nil {
			return fail(fmt.Errorf("reading the prompt from stdin: %w", err))
		}
		prompt = strings.TrimSpace(string(b))
	}
	if prompt == "" {
		return fail(fmt.Errorf("no prompt: give one with -p or on stdin"))
	}
	ios.Err = &lockedWriter{w: ios.Err}
	warn := func(w string) { fmt.Fprintf(ios.Err, "atomic: warning: %s\n", w) }
	o, err := c.open(ctx, ios, nil, warn)
	if err != nil {
		var late *runtimeError
		var held *store.HeldError
		if errors.As(err, &late) || errors.As(err, &held) {
			fmt.Fprintf(ios.Err, "atomic: %v\n", err)
			return 1
		}
		return fail(err)
	}
	defer o.close()
	var input <-chan string
	if streamIn {
		ictx, stop := context.WithCancel(ctx)
		defer stop()
		mux := &lineMux{w: ios.Out} // control responses go between the run's lines
		ios.Out = mux.source()
		input = headless.ClaudeInput(ictx, ios.In, warn, o.controls(mux.source()))
		first, ok := <-input
		if !ok {
			fmt.Fprintln(ios.Err, "atomic: --input-format stream-json: no user message on stdin")
			return 2
		}
		prompt = first
		input = expandEach(ictx, input, func(p string) string {
			if cmd, args, ok := o.s.commands.Resolve(p); ok {
				if r, err := renderCommand(ictx, o.s, cmd, args, warn); err == nil {
					return r
				} else {
					warn(err.Error() + " (sent as typed)")
				}
			}
			return p
		})
	}
	model := o.s.ps.Model
	if cmd, args, ok := o.s.commands.Resolve(prompt); ok { // "/name args", as Claude Code's -p does
		if prompt, err = renderCommand(ctx, o.s, cmd, args, warn); err != nil {
			fmt.Fprintf(ios.Err, "atomic: %v\n", err)
			return 1
		}
		if cmd.Model != "" && o.rt.Lead() != nil {
			o.rt.Lead().SetModel(cmd.Model)
			model = cmd.Model
		}
	} else if p, ok, err := expandSkill(o.s, prompt); ok { // "/skill args", as Claude Code's -p does
		if err != nil {
			fmt.Fprintf(ios.Err, "atomic: %v\n", err)
			return 1
		}
		prompt = p
	}
	durable, _ := o.journal.(headless.Durability) // stream-json prints what the store holds
	return headless.Run(ctx, o.rt, headless.Options{Prompt: prompt, OutputFormat: format, Timeout: c.timeout, Model: model,
		Durable: durable, Claude: headless.ClaudeInit{Cwd: ios.Dir, PermissionMode: string(o.s.gate.Mode())}, Input: input},
		headless.Streams{Out: ios.Out, Err: ios.Err})
}

// opened is a run ready to serve: its setup, the session it resumed (nil
// for a new one), its journal and its runtime.
type opened struct {
	s       *setup
	res     *resumed
	journal runtime.Journal
	rt      *runtime.Runtime
	// close closes the runtime, then its observers, then the recording.
	close func()
}

// runtimeError is a failure to open the runtime itself (a backend that
// does not start), as opposed to bad flags or configuration.
type runtimeError struct{ err error }

func (e *runtimeError) Error() string { return e.err.Error() }
func (e *runtimeError) Unwrap() error { return e.err }

// open resolves c's settings in ios.Dir, starts the MCP servers, builds
// the provider and the lead's backend, loads the session --resume or
// --continue names, starts recording and opens the runtime; asker answers
// approvals (nil: the headless policy decides). Warnings go to warn. The
// caller serves the runtime and calls close at the end.
func (c *common) open(ctx context.Context, ios IOStreams, asker permission.Asker, warn func(string)) (*opened, error) {
	s, err := c.resolve(ios, asker)
	if err != nil {
		return nil, err
	}
	c.startMCP(ctx, ios, s, warn)
	if s.mcpHeldWarning != "" { // nobody here to ask: one warning says how to approve
		s.warnings = append(s.warnings, s.mcpHeldWarning)
	}
	// release ends what resolve, startMCP and dialNATS began: the MCP
	// servers, the sandbox (its temp dir) and the connection to the
	// workers (after the runtime's Close, so remote tasks are cancelled
	// first), also when the run fails to open.
	release := func() {
		s.mcp.Close()
		s.sandbox.Close()
		s.closeNATS()
		s.closeProvider()
	}
	newLead, err := c.leadBackend(s)
	if err != nil {
		release()
		return nil, err
	}
	if newLead == nil { // an external CLI brings its own model
		if err := c.buildProvider(ios, s); err != nil {
			release()
			return nil, err
		}
	}
	for _, w := range s.warnings {
		warn(w)
	}
	if err := c.dialNATS(ctx, ios, s); err != nil {
		release()
		return nil, err
	}
	res, err := c.resumeSession(ctx, ios, s)
	if err == nil {
		err = c.sessionIDFree(ctx, ios)
	}
	if err != nil {
		release()
		return nil, err
	}
	id, journal, stopRecording := c.record(ios, s, res)
	rt, err := newRuntime(c, s, true, newLead, c.treeBackends(ios, s), id, journal, res, warn)
	if err != nil {
		stopRecording()
		release()
		return nil, &runtimeError{err}
	}
	closeRun := observeRun(ios, rt, c.noPersistence, s.redactor())
	return &opened{s: s, res: res, journal: journal, rt: rt, close: func() {
		closeRun()
		stopRecording() // after rt.Close: the last events are kept
		release()
	}}, nil
}

// newRuntime opens the run; newLead (nil: the native loop) builds the
// lead's session on another backend.
func newRuntime(c *common, s *setup, headlessMode bool, newLead func(backend.Config) (backend.Session, error), tree backend.Factory,
	sessionID string, journal runtime.Journal, res *resumed, warn func(string)) (*runtime.Runtime, error) {
	var resume *runtime.Resume
	if res != nil {
		resume = res.run
	}
	newLead = continueCLI(newLead, res, journal, c.cliHome)
	return runtime.Open(runtime.Config{
		SessionID: sessionID, Journal: journal, Resume: resume,
		Provider: s.prov, Model: s.ps.Model, Workspace: s.workspace, Gate: s.gate, Types: s.types, Memory: s.memory.Prompt(), Skills: s.skills,
		SystemPrompt: c.systemPrompt, AppendSystemPrompt: c.appendSystem,
		NestedMemory: func(read tools.Tool) tools.Tool { return memory.WithNested(read, s.workspace.Root, s.getenv("HOME")) },
		MaxSubagents: c.maxSubagents, MaxDepth: c.maxDepth, MaxRemoteTasks: c.maxRemote, Teams: c.teams || c.demo, MaxTeammates: c.maxTeammates, MaxTurns: c.maxTurns, Effort: c.level,
		CancelOnLeadError: headlessMode, Checkpoints: !headlessMode && !c.holdWakes, HoldWakes: c.holdWakes, NewLead: newLead, Backends: tree,
		MCP: s.mcp, MCPStartupBudget: s.mcpBudget, Warn: warn, Remote: s.remote,
		Context: contextPolicy(s.file), Hooks: s.hooks,
	})
}

// contextPolicy is the config's context windows and compaction threshold.
func contextPolicy(f config.File) backend.ContextPolicy {
	return backend.ContextPolicy{Window: f.ContextWindow, Windows: f.ContextWindows, CompactAt: f.CompactThreshold}
}

// continueCLI has an external CLI lead continue the resumed session's
// conversation in the CLI, keep a home Atomic makes for it in home (""
// when the session is not saved), and tell the journal the id of the
// conversation it runs, for a later resume.
func continueCLI(newLead func(backend.Config) (backend.Session, error), res *resumed, journal runtime.Journal, home string) func(backend.Config) (backend.Session, error) {
	if newLead == nil {
		return nil
	}
	keeper, _ := journal.(interface{ CLISession(id string) })
	return func(cfg backend.Config) (backend.Session, error) {
		if res != nil {
			cfg.ResumeCLI = res.session.CLISession
		}
		if keeper != nil {
			cfg.OnCLISession, cfg.CLIHome = keeper.CLISession, home
		}
		return newLead(cfg)
	}
}

// expandEach relays prompts through expand (a "/name args" one becomes
// the custom command it names).
func expandEach(ctx context.Context, in <-chan string, expand func(string) string) <-chan string {
	out := make(chan string)
	go func() {
		defer close(out)
		for p := range in {
			p = expand(p)
			select {
			case out <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
