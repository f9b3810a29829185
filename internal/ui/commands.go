package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/commands"
)

// helpText is what /help shows.
const helpText = `Commands:
  /help               this help
  /clear              clear the conversation (cancels background work)
  /model [name]       show the model, or switch to another
  /agents             list agent types and where each is defined
  /tasks [cancel ID]  list background tasks; cancel one
  /tasks resume ID    continue a background task Atomic's exit interrupted
  /team [send NAME TEXT | stop NAME]   list teammates; message or stop one
  /worktrees [merge ID | discard ID]   isolated agents' worktrees; apply one onto your tree or drop it
  /memory             the memory files (AGENTS.md, CLAUDE.md) loaded, and why any was skipped
  /mcp                MCP servers: state, transport, tools, last error
  /rewind             go back to before a prompt: restore the code, the conversation or both (also Esc twice)
  /compact [instructions]  summarise the conversation's older turns to free context
  /context            each agent's context use of its model's window
  /cost               tokens and cost of the session, per agent type
  /status             model, provider, backend, session, folder, permissions, sandbox, MCP, store
  /diff               the working tree's diff, with the files sub-agents changed
  /review             review the working tree's diff with reviewer sub-agents
  /init               write an AGENTS.md from a look at the repository by explore agents
  /export [file]      write the conversation as Markdown
  /permissions [allow RULE | deny RULE]  the rules in force and where each comes from; add one for this session
  /config             the effective settings and the file or flag each comes from
  /resume [ID]        this folder's sessions; continue one in this chat
  /add-dir PATH       add a folder to the workspace for this session
  /doctor             check the provider, key, store, sandbox, git, CLIs and MCP servers
  /quit, /exit        quit (cancels every agent)
Keys:
  enter send · alt+enter or ctrl+j or a trailing \ new line · up/down history
  esc interrupt, twice when idle rewind · ctrl+c interrupt, twice to quit · ctrl+d on empty input quit
  ctrl+o expand or collapse agents trees and tool output · pgup/pgdown scroll (--alt-screen)`

// FixedCommands are the built-ins a command file may not take: the ones a
// user needs to learn and to leave. Every other built-in gives way to a
// user's command file of its name (/help says so).
func FixedCommands() []string { return []string{"/help", "/?", "/quit", "/exit"} }

// BuiltinCommands are the names of the built-in slash commands.
func BuiltinCommands() []string {
	return []string{"/help", "/?", "/quit", "/exit", "/clear", "/model", "/agents", "/tasks", "/team", "/worktrees", "/memory", "/mcp", "/compact", "/rewind", "/context", "/cost", "/status", "/diff", "/review", "/init", "/export", "/permissions", "/config", "/resume", "/add-dir", "/doctor"}
}

// command runs a slash command typed in the input.
func (m *Model) command(text string) {
	fields := strings.Fields(text)
	name, args := strings.ToLower(fields[0]), fields[1:]
	if c, cargs, ok := m.cfg.Commands.Resolve(text); ok { // the user's file wins over a built-in of its name
		m.customCommand(text, c, cargs)
		return
	}
	switch name {
	case "/help", "/?":
		m.note(noteInfo, m.help()+m.skillHelp())
	case "/memory":
		m.note(noteInfo, m.cfg.Memory.Summary())
	case "/quit", "/exit":
		m.quitting = true
	case "/clear":
		m.clear()
	case "/model":
		m.modelCommand(args)
	case "/agents":
		m.agentsCommand()
	case "/tasks":
		m.tasksCommand(args)
	case "/team":
		m.teamCommand(args, text)
	case "/mcp":
		m.mcpCommand()
	case "/compact":
		m.compactCommand(strings.TrimSpace(text[len(fields[0]):]))
	case "/rewind":
		m.openRewind()
	case "/context":
		m.contextCommand()
	case "/worktrees":
		m.worktreesCommand(args)
	case "/cost":
		m.costCommand()
	case "/status":
		m.statusCommand()
	case "/diff":
		m.diffCommand(false)
	case "/review":
		m.diffCommand(true)
	case "/init":
		m.send("/init", initPrompt)
	case "/export":
		m.exportCommand(args)
	case "/permissions":
		m.permissionsCommand(args)
	case "/config":
		m.configCommand()
	case "/resume":
		m.resumeCommand(args)
	case "/add-dir":
		m.addDirCommand(args)
	case "/doctor":
		m.doctorCommand()
	default:
		if m.skillCommand(text) {
			return
		}
		m.note(noteError, fmt.Sprintf("Unknown command %s; /help lists the commands", fields[0]))
	}
}

// help is /help: the built-ins, each one a command file hides marked so,
// then the custom commands.
func (m *Model) help() string {
	lines := strings.Split(helpText, "\n")
	for i, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && shadowed(m.cfg.Commands, f[0]) {
			lines[i] = l + "  [hidden by your " + f[0] + " command file]"
		}
	}
	return strings.Join(lines, "\n") + customHelp(m.cfg.Commands)
}

// shadowed reports whether built-in name (with slash) gives way to a
// command file of the same name.
func shadowed(set *commands.Set, name string) bool {
	if !strings.HasPrefix(name, "/") {
		return false
	}
	_, ok := set.Lookup(strings.TrimPrefix(name, "/"))
	return ok
}

// customHelp lists the custom slash commands for /help.
func customHelp(set *commands.Set) string {
	all := set.All()
	if len(all) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nCustom commands:")
	for _, c := range all {
		use := "/" + c.Name
		if c.ArgumentHint != "" {
			use += " " + c.ArgumentHint
		}
		fmt.Fprintf(&b, "\n  %-19s %s (%s)", use, oneLine(c.Description), c.Scope)
		if slices.Contains(BuiltinCommands(), "/"+c.Name) {
			b.WriteString(" · hides the built-in /" + c.Name)
		}
	}
	return b.String()
}

// clear resets the conversation and the transcript.
func (m *Model) clear() {
	if m.cfg.Backend != nil {
		m.cfg.Backend.Reset("/clear")
	}
	m.tr.clear()
	m.streaming, m.openTree, m.team, m.thinking = nil, nil, nil, nil
	m.trees = nil
	clear(m.tools)
	clear(m.treeByCall)
	clear(m.treeByAgent)
	m.busy, m.offset, m.tasks = false, 0, nil
	m.clearing = m.cfg.Backend != nil // until the runtime's reset event
	m.usage.context = 0               // the conversation is empty again; totals and cost stay
	clear(m.waits.retries)
	m.note(noteInfo, "Conversation cleared.")
}

func (m *Model) agentsCommand() {
	if m.cfg.Backend == nil {
		return
	}
	var b strings.Builder
	b.WriteString("Agent types:")
	for _, t := range m.cfg.Backend.AgentTypes() {
		fmt.Fprintf(&b, "\n  %s · %s", t.Name, t.Source)
		if d := oneLine(t.Description); d != "" {
			fmt.Fprintf(&b, "\n      %s", d)
		}
	}
	m.note(noteInfo, b.String())
}

// mcpCommand lists the MCP servers: what each is doing and why one failed.
func (m *Model) mcpCommand() {
	if m.cfg.Backend == nil {
		return
	}
	servers := m.cfg.Backend.MCP()
	if len(servers) == 0 {
		m.note(noteInfo, "No MCP servers. Configure them in .mcp.json (mcpServers), ~/.config/atomic/mcp.json or --mcp-config FILE.")
		return
	}
	var b strings.Builder
	b.WriteString("MCP servers:")
	for _, s := range servers {
		fmt.Fprintf(&b, "\n  %s · %s · %s · %d tools", s.Name, s.State, s.Transport, s.Tools)
		if s.Err != "" {
			fmt.Fprintf(&b, "\n      %s", s.Err)
		}
	}
	m.note(noteInfo, b.String())
}

func (m *Model) tasksCommand(args []string) {
	if len(args) >= 2 && strings.EqualFold(args[0], "cancel") {
		m.cancelTask(args[1])
		return
	}
	if len(args) >= 2 && strings.EqualFold(args[0], "resume") {
		m.resumeTask(args[1])
		return
	}
	m.tasks = &tasksPanel{}
	m.in.ta.Blur()
}

// cancelTask cancels a sub-agent by id and says so.
func (m *Model) cancelTask(id string) {
	if m.cfg.Backend == nil {
		return
	}
	if err := m.cfg.Backend.CancelTask(id); err != nil {
		m.note(noteError, err.Error())
		return
	}
	m.note(noteWarning, "Cancelling "+id+"…")
}

// resumeTask continues an interrupted background task and says so.
func (m *Model) resumeTask(id string) {
	if m.cfg.Backend == nil {
		return
	}
	if err := m.cfg.Backend.ResumeTask(id); err != nil {
		m.note(noteError, err.Error())
		return
	}
	m.note(noteInfo, "Resuming "+id+" in the background…")
}

func (m *Model) teamCommand(args []string, text string) {
	t := m.cfg.Team
	if t == nil {
		m.note(noteInfo, "No team in this session.")
		return
	}
	switch {
	case len(args) >= 3 && strings.EqualFold(args[0], "send"):
		// Keep the message as typed, spaces and all.
		msg := strings.TrimSpace(text[strings.Index(text, args[1])+len(args[1]):])
		if err := t.Send(args[1], msg); err != nil {
			m.note(noteError, err.Error())
			return
		}
		m.note(noteInfo, fmt.Sprintf("✉ lead → %s: %s", args[1], msg))
		return
	case len(args) == 2 && strings.EqualFold(args[0], "stop"):
		if err := t.Stop(args[1]); err != nil {
			m.note(noteError, err.Error())
			return
		}
		m.note(noteWarning, "Stopping "+args[1]+"…")
		return
	case len(args) > 0:
		m.note(noteError, "Usage: /team, /team send NAME TEXT, /team stop NAME")
		return
	}
	mates := t.Teammates()
	if len(mates) == 0 {
		m.note(noteInfo, "No teammates.")
		return
	}
	var b strings.Builder
	b.WriteString("Teammates:")
	for _, tm := range mates {
		fmt.Fprintf(&b, "\n  %s", tm.Name)
		if tm.Role != "" {
			fmt.Fprintf(&b, " · %s", tm.Role)
		}
		fmt.Fprintf(&b, " · %s", tm.Status)
	}
	m.note(noteInfo, b.String())
}

// commandReadyMsg is a command file's prompt, made off the UI's loop.
type commandReadyMsg struct {
	typed, prompt string
	err           error
	start         func() // runs as its turn starts (nil: nothing)
}

// customCommand sends a custom command's prompt: at once when it runs
// nothing, else once its !`commands` ran and its @paths were read.
func (m *Model) customCommand(typed string, c commands.Command, args string) {
	render := m.cfg.RenderCommand
	if render == nil || !c.HasRefs() && len(c.AllowedTools) == 0 {
		m.send(typed, c.Expand(args))
		return
	}
	m.note(noteInfo, "Running /"+c.Name+"'s commands…")
	m.later = func() tea.Msg {
		p, err := render(context.Background(), c, args)
		return commandReadyMsg{typed: typed, prompt: p, err: err}
	}
}

func (m *Model) commandReady(msg commandReadyMsg) {
	if msg.err != nil {
		m.note(noteError, msg.err.Error())
		return
	}
	m.atStart = msg.start
	m.send(msg.typed, msg.prompt)
}
