package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/atomic-agent/atomic/internal/acp"
	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/config"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/store"
)

const acpSynopsis = `Usage: atomic acp [flags]

Serves the Agent Client Protocol on stdin and stdout, for editors such as
Zed: each ACP session is a run of Atomic in the session's folder, with the
provider, backend and permission flags of atomic run. Approvals go to the
editor; sessions are saved and can be loaded again (session/load).
`

func runACP(ctx context.Context, args []string, ios IOStreams) int {
	fs := flag.NewFlagSet("atomic acp", flag.ContinueOnError)
	var c common
	c.register(fs)
	if code, ok := c.parse(fs, args, ios, acpSynopsis); !ok {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(ios.Err, "atomic: %v\n", err)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return fail(fmt.Errorf("unexpected arguments %q: atomic acp takes its prompts from the client", fs.Args()))
	case c.cont || c.resume.set:
		return fail(errors.New("--continue and --resume do not apply to atomic acp: the client loads a session with session/load"))
	case c.timeout > 0:
		return fail(errors.New("--timeout does not apply to atomic acp: the client cancels a prompt with session/cancel"))
	}
	ios.Err = &lockedWriter{w: ios.Err}
	err := acp.Serve(ctx, acp.Config{
		Open:    func(ctx context.Context, spec acp.Spec) (*acp.Run, error) { return c.openACP(ctx, ios, spec) },
		CanLoad: func() bool { return !c.noPersistence && storeOn(ios) },
		Version: Version,
		Images:  c.promptImages(ios),
	}, ios.In, ios.Out)
	if err != nil {
		return fail(err)
	}
	return 0
}

// openACP opens the run of one ACP session: the flags' settings in the
// session's folder, with the client as the asker of approvals and, when
// it offers them, as the file tools' reader and writer.
func (c common) openACP(ctx context.Context, ios IOStreams, spec acp.Spec) (*acp.Run, error) {
	ios.Dir = spec.Cwd
	if spec.LoadID != "" {
		c.resume = resumeFlag{id: spec.LoadID, set: true}
	}
	c.extraMCP, c.files = spec.MCPServers, spec.Files
	// A lead's turn is the answer to a prompt: what wakes it between
	// prompts joins the next one (the background call's own tool call
	// update says it ended meanwhile).
	c.holdWakes = true
	warn := func(w string) {
		fmt.Fprintf(ios.Err, "atomic: warning: %s\n", w)
		if spec.Warn != nil {
			spec.Warn(w)
		}
	}
	// The run outlives the request that opens it.
	o, err := c.open(context.WithoutCancel(ctx), ios, spec.Asker, warn)
	if err != nil {
		return nil, err
	}
	run := &acp.Run{ID: o.rt.SessionID(), Runtime: o.rt, Gate: o.s.gate, Close: o.close}
	for _, cmd := range o.s.commands.All() {
		run.Commands = append(run.Commands, acp.Command{Name: cmd.Name, Description: cmd.Description, Hint: cmd.ArgumentHint})
	}
	run.Commands = append(run.Commands, skillCommands(o.s)...)
	run.Expand = func(ctx context.Context, text string) (string, func(), bool, error) {
		cmd, args, ok := o.s.commands.Resolve(text)
		if !ok {
			return tuiSkills{s: o.s, warn: warn}.Expand(text)
		}
		// As the chat does: its !`commands` go through the gate, whose
		// asker is the client (session/request_permission).
		p, err := renderCommand(ctx, o.s, cmd, args, warn)
		return p, nil, true, err
	}
	if k, ok := o.journal.(interface{ Keep() }); ok && o.res == nil {
		// Saved now, not at its first prompt: an editor may load a
		// session it created but never prompted (acpx sessions new).
		k.Keep()
	}
	if o.res != nil {
		run.Past = o.res.run.Events
		for _, p := range o.res.prompts {
			run.Prompts = append(run.Prompts, acp.Prompt{Text: p.Text, Time: p.Time})
		}
		run.Prompts = acp.RestoreImages(run.Prompts, o.res.run.History)
	}
	return run, nil
}

// promptImages reports whether the lead will take images in prompts: the
// native backend over a provider that sends them (anthropic, openai; not
// the demo model nor an external CLI). Settings that do not resolve take
// none: opening the session then names the problem.
func (c common) promptImages(ios IOStreams) bool {
	f, err := c.configFile(ios)
	if err != nil {
		return false
	}
	if c.backendName(&setup{file: f}) != backend.Native {
		return false
	}
	ps, err := config.Resolve(config.Flags{Provider: c.provider, Model: c.model, BaseURL: c.baseURL, Demo: c.demo}, f, ios.Getenv)
	return err == nil && provider.TakesImages(ps.Provider)
}

// storeOn reports whether sessions are saved: the store has a place,
// whether or not atomic.db exists yet. Clients cache the capabilities
// (acpx does), so loadSession is offered before the first session is.
func storeOn(ios IOStreams) bool {
	_, err := store.Path(ios.Getenv)
	return err == nil
}
