package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/atomic-agent/atomic/internal/backend"
	"path/filepath"

	"github.com/atomic-agent/atomic/internal/commands"
	"github.com/atomic-agent/atomic/internal/config"
	"github.com/atomic-agent/atomic/internal/headless"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/store"
	"github.com/atomic-agent/atomic/internal/team"
	"github.com/atomic-agent/atomic/internal/tools"
	"github.com/atomic-agent/atomic/internal/ui"
)

// runTUI opens the chat UI, with the same provider, model, base URL,
// permission and limit flags as atomic run. With no provider configured it
// first shows the first-run screen, which offers the demo model.
func runTUI(ctx context.Context, args []string, ios IOStreams) int {
	code, next := runChat(ctx, args, ios, "")
	for next != "" { // /resume ID: the same chat, opened anew on that session
		code, next = runChat(ctx, args, ios, next)
	}
	return code
}

// runChat runs one chat; with resume set it continues that session
// whatever the flags said of the session. next is the session /resume
// chose to continue in its place ("" when the chat ended otherwise).
func runChat(ctx context.Context, args []string, ios IOStreams, resume string) (code int, next string) {
	fs := flag.NewFlagSet("atomic", flag.ContinueOnError)
	fs.SetOutput(ios.Err)
	var c common
	c.register(fs)
	if code, ok := c.parse(fs, args, ios, usage); !ok {
		return code, ""
	}
	if resume != "" {
		c.resume, c.cont, c.sessionID, c.forkSession = resumeFlag{id: resume, set: true}, false, "", false
	}
	given := givenFlags(fs) // /config names the flags a setting came from
	fail := func(err error) int {
		fmt.Fprintf(ios.Err, "atomic: %v\n", err)
		if errors.As(err, new(*store.HeldError)) {
			return 1 // not a usage error: the session is busy
		}
		return 2
	}
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("unexpected arguments %q: the chat UI takes no prompt (use 'atomic run -p PROMPT' for one-shot runs)", fs.Args())), ""
	}
	if !ios.StdinIsTerminal {
		return fail(errors.New("the chat UI needs a terminal; use 'atomic run -p PROMPT' for headless runs")), ""
	}

	// The gate takes the asker, so the approval queue exists before the
	// runtime; its differ reads the tool set once the workspace is known.
	var toolSet *tools.Set
	approvals := ui.NewApprovals(func(req permission.Request) string {
		if toolSet == nil {
			return ""
		}
		return ui.ToolDiffer(toolSet)(req)
	})
	s, err := c.resolve(ios, approvals)
	if err != nil {
		return fail(err), ""
	}
	defer s.sandbox.Close() // its temp dir goes with the session
	toolSet = runtime.CoreTools(s.workspace)
	notes := make(chan string, 32)
	note := func(w string) {
		select {
		case notes <- w:
		default: // the UI shows what it can; a flood is not worth blocking a server
		}
	}
	c.startMCP(ctx, ios, s, note)
	defer s.mcp.Close()
	s.mcp.AddTo(toolSet) // approval prompts and the transcript label MCP calls too
	newLead, err := c.leadBackend(s)
	if err != nil {
		return fail(err), ""
	}
	if newLead == nil { // an external CLI brings its own model
		err = c.buildProvider(ios, s)
	}
	if errors.Is(err, config.ErrNoProvider) {
		path := c.configPath
		if path == "" {
			path = filepath.Join(config.UserDir(ios.Getenv), "config.json")
		}
		demo, ferr := ui.RunFirstRun(ctx, ios.In, ios.Out, path)
		if ferr != nil {
			return fail(ferr), ""
		}
		if !demo {
			return 0, ""
		}
		c.demo = true
		err = c.buildProvider(ios, s)
	}
	if err != nil {
		return fail(err), ""
	}
	defer s.closeProvider()

	if ok, err := c.pickSession(ctx, ios); err != nil {
		return fail(err), ""
	} else if !ok {
		return 0, ""
	}
	if err := c.dialNATS(ctx, ios, s); err != nil {
		return fail(err), ""
	}
	defer s.closeNATS()
	res, err := c.resumeSession(ctx, ios, s)
	if err == nil {
		err = c.sessionIDFree(ctx, ios)
	}
	if err != nil {
		return fail(err), ""
	}
	// The alternate screen hides stderr until the chat ends: a store that
	// cannot be used (corrupt, locked) is said in the transcript, and
	// opened now, while the user reads and types, so it is said at once.
	var stored storeState // what /status says of the store
	id, journal, stopRecording := c.recordWarning(ios, s, res, func(err error) { stored.fail(err); note("warning: " + err.Error()) })
	defer stopRecording() // after rt.Close: the last events are kept
	if b, ok := journal.(interface{ Begin() }); ok {
		b.Begin()
	}
	rt, err := newRuntime(&c, s, false, newLead, c.treeBackends(ios, s), id, journal, res, note)
	if err != nil {
		fmt.Fprintf(ios.Err, "atomic: %v\n", err)
		return 1, ""
	}
	defer observeRun(ios, rt, c.noPersistence, s.redactor())()
	// The project's unapproved MCP servers are asked about in the UI
	// (headless runs warn instead).
	stopAsking := askMCPTrust(ctx, approvals, ios, s, note)
	defer stopAsking()
	err = ui.Run(ctx, ui.Options{
		Runtime: rt, Approvals: approvals, Subject: ui.ToolSubject(toolSet), Team: teamControl{rt.Team()},
		Welcome: welcome(s, c.backendName(s)), Past: res.past(), In: ios.In, Out: ios.Out, Notes: notes,
		Memory: s.memory, Commands: s.commands, Info: sessionInfo(&c, s, ios, id, &stored),
		Session: &tuiSession{c: &c, s: s, ios: ios, given: given, stored: &stored, run: rt},
		RenderCommand: func(ctx context.Context, c commands.Command, args string) (string, error) {
			return renderCommand(ctx, s, c, args, note)
		},
		Skills:    tuiSkills{s, note},
		Workspace: s.workspace.Root,
		Files: func(ctx context.Context, limit int) ([]string, error) {
			return tools.ListFiles(ctx, s.workspace, limit)
		},
		Attach: func(ctx context.Context, p string) (string, error) { return attachFile(ctx, s, p) },
		Shell:  func(ctx context.Context, cmd string) (string, error) { return userShell(ctx, s, cmd) },
		Modes:  s.gate, LoadHistory: func() []string { return folderPrompts(ctx, ios) },
		AltScreen: c.altScreen,
		ResumeCommand: func() string {
			if c.noPersistence || stored.failed() {
				return ""
			}
			return "atomic --resume " + id
		},
	})
	var sw *ui.SwitchSession
	if errors.As(err, &sw) {
		return 0, sw.ID
	}
	if err != nil {
		return fail(err), ""
	}
	var intr headless.Interrupted
	if errors.As(context.Cause(ctx), &intr) {
		fmt.Fprintf(ios.Err, "atomic: %s\n", intr)
		return intr.Code, ""
	}
	return 0, ""
}

// welcome are the lines that open the transcript: what runs, and warnings.
func welcome(s *setup, backendName string) []string {
	what := fmt.Sprintf("%s via %s (%s)", s.ps.Model, s.ps.Provider, s.ps.Source)
	if backendName != backend.Native {
		what = "the lead runs in " + backendName + " (its own model, unless --model says otherwise)"
	}
	out := []string{fmt.Sprintf("Atomic %s · %s · %s · /help for commands", Version, what, s.workspace.Root)}
	if s.ps.Provider == "demo" {
		out = append(out, "Demo model: canned decisions, real tool calls. Try “explore this project with agents” or “show me a team”.")
	}
	for _, w := range s.warnings {
		out = append(out, "warning: "+w)
	}
	return out
}

// teamControl lets /team list, message and stop teammates.
type teamControl struct{ m *team.Manager }

func (t teamControl) Teammates() []ui.Teammate {
	var out []ui.Teammate
	for _, i := range t.m.Teammates() {
		out = append(out, ui.Teammate{Name: i.Name, Role: i.Role, Status: string(i.Status)})
	}
	return out
}

func (t teamControl) Send(to, text string) error { return t.m.Send(to, text) }
func (t teamControl) Stop(name string) error     { return t.m.Stop(name) }
