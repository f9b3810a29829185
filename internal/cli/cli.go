// Package cli is Atomic's command line: `atomic` (the TUI), `atomic run`
// (headless), `atomic loopback` (the scripted model server for tests) and
// `atomic version`. Everything it touches comes in through IOStreams so every
// command is testable.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/charmbracelet/x/term"
)

// Version is set at build time.
var Version = "dev"

// IOStreams are a command's connections to the world.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	Getenv func(string) string
	// Dir is the working directory (the workspace root); DirErr says why
	// there is none (the folder was deleted under the shell).
	Dir    string
	DirErr error
	// StdinIsTerminal is set when In is an interactive terminal.
	StdinIsTerminal bool
	// Setenv sets a variable of Atomic's own process (the env of the
	// user's Claude Code settings); nil leaves the process alone, as in
	// tests, where only Getenv lookups made by the session see them.
	Setenv func(key, value string) error
	// Exits is set when the process exits as Run returns (System): the
	// session store is then left for the exit to close, without the
	// checkpoint closing it does (store.Recorder.Exit).
	Exits bool
}

// System returns the process's streams.
func System() IOStreams {
	dir, dirErr := os.Getwd()
	// A terminal, not any character device: /dev/null is one too.
	tty := term.IsTerminal(os.Stdin.Fd())
	return IOStreams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv, Dir: dir, DirErr: dirErr, StdinIsTerminal: tty, Setenv: os.Setenv, Exits: true}
}

const usage = `Atomic: a terminal coding agent with parallel sub-agents.

Usage:
  atomic [flags]                 open the chat UI
  atomic run -p PROMPT [flags]   run headless (prompt also from stdin); also atomic -p PROMPT, atomic exec PROMPT
  atomic resume [ID] [--last]    open the chat UI on a saved session (the picker, or the last one here)
  atomic acp [flags]             serve the Agent Client Protocol on stdio (Zed and other editors)
  atomic backends [--json]       list the backends (Claude Code, Codex, …): found, version, support
  atomic sessions [--json]       list the saved sessions; 'atomic sessions export ID', 'atomic sessions rm ID'
  atomic mcp [trust|untrust NAME]  list the MCP servers; approve the project's .mcp.json ones
  atomic stats [--since D] [--json]  agents per type and backend: spawned, errors, p50/p95, tools, tokens, cost
  atomic worker --nats URL --workspace DIR  run sub-agents of leads started with --nats
  atomic nats --listen HOST:PORT  run an embedded NATS server with JetStream
  atomic loopback --scenario F   serve a scripted model on loopback (for tests)
  atomic version

Run 'atomic run --help' for the flags of a headless run.
`

// Run executes args (without the program name) and returns the exit code.
func Run(ctx context.Context, args []string, io IOStreams) int {
	if io.DirErr != nil && needsWorkspace(args) {
		fmt.Fprintf(io.Err, "atomic: the current folder is gone (deleted, or not readable: %v): cd to one that exists\n", io.DirErr)
		return 1
	}
	if len(args) > 0 {
		switch args[0] {
		case "run", "exec": // exec: Codex's name
			return runHeadless(ctx, args[1:], io)
		case "resume": // Codex's: resume [ID] [--last]
			return runTUI(ctx, resumeArgs(args[1:]), io)
		case "acp":
			return runACP(ctx, args[1:], io)
		case "loopback":
			return runLoopback(ctx, args[1:], io)
		case "worker":
			return runWorker(ctx, args[1:], io)
		case "nats":
			return runNATS(ctx, args[1:], io)
		case "backends":
			return runBackends(ctx, args[1:], io)
		case "sessions":
			return runSessions(ctx, args[1:], io)
		case "stats":
			return runStats(ctx, args[1:], io)
		case "mcp":
			return runMCP(ctx, args[1:], io)
		case "version", "--version":
			fmt.Fprintf(io.Out, "atomic %s\n", buildVersion(Version, debug.ReadBuildInfo))
			return 0
		case "help": // -h and --help reach the chat UI's flags, which list them
			fmt.Fprint(io.Out, usage)
			return 0
		}
		if !strings.HasPrefix(args[0], "-") {
			fmt.Fprintf(io.Err, "atomic: unknown command %q\n\n%s", args[0], usage)
			return 2
		}
	}
	if wantsHeadless(args) { // Claude Code's -p
		return runHeadless(ctx, args, io)
	}
	return runTUI(ctx, args, io)
}

// needsWorkspace reports whether the command works in the current folder
// (the chat UI, a run, acp, mcp), which then has to exist.
func needsWorkspace(args []string) bool {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return true
	}
	switch args[0] {
	case "run", "exec", "resume", "acp", "mcp":
		return true
	}
	return false
}

// buildVersion is Atomic's version: the one set at build time, else the
// module's version and the commit it was built from, as the Go toolchain
// recorded them in the binary.
func buildVersion(set string, read func() (*debug.BuildInfo, bool)) string {
	if set != "dev" {
		return set
	}
	info, ok := read()
	if !ok {
		return set
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = set
	}
	var rev, when string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return v + " (" + info.GoVersion + ", no commit recorded)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += ", modified"
	}
	if when != "" {
		rev += ", " + when
	}
	return v + " (commit " + rev + ", " + info.GoVersion + ")"
}
