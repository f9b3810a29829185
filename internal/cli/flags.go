package cli

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/claudesettings"
	"github.com/atomic-agent/atomic/internal/commands"
	"github.com/atomic-agent/atomic/internal/config"
	"github.com/atomic-agent/atomic/internal/dotdirs"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/memory"
	"github.com/atomic-agent/atomic/internal/observe"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/sandbox"
	"github.com/atomic-agent/atomic/internal/skills"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/tools"
	"github.com/atomic-agent/atomic/internal/ui"
)

// common are the flags shared by the TUI and atomic run.
type common struct {
	provider, model, baseURL, configPath string
	permissionMode                       string
	allowed, disallowed                  stringList
	addDirs                              stringList
	maxTurns, maxSubagents, maxTeammates int
	maxDepth                             int
	timeout                              time.Duration
	demo                                 bool
	teams                                bool
	backend, backendBin                  string
	noPersistence                        bool
	altScreen                            bool
	sandbox                              string
	allowNetwork                         bool
	// effort is --effort as given; resolve checks it (or the config
	// file's) into level.
	effort string
	level  provider.Effort

	// maxRemote caps the tasks on NATS workers at once (0: unbounded).
	maxRemote int
	// cliHome is the kept home of the run's CLI lead, set by record when
	// the session is saved.
	cliHome string
	// cont and resume pick a saved session to continue.
	cont   bool
	resume resumeFlag
	// mcpConfigs are --mcp-config files (or JSON); strictMCP reads only
	// them.
	mcpConfigs pathList
	strictMCP  bool
	// trustMCP approves the workspace's .mcp.json servers for this run.
	trustMCP trustFlag
	// trustSettings applies what the project's Claude Code settings
	// files loosen, for this run.
	trustSettings bool
	// extraMCP are MCP servers an ACP client passes for its session, after
	// the configured ones (a same-named one replaces a configured one).
	extraMCP []mcp.Server
	// files is an ACP client's file access, used by the file tools.
	files tools.Files
	// holdWakes keeps the lead asleep between an ACP client's prompts
	// (runtime.Config.HoldWakes).
	holdWakes bool
	// nats sends task sub-agents to remote workers (natsAll: every type,
	// else those whose file says runs_on: workers).
	nats natsFlags
	habits
}

// resumeFlag is --resume ID; the chat UI also takes a bare --resume
// (given as --resume=, see habitArgs), which opens the session picker.
type resumeFlag struct {
	id  string
	set bool
}

func (r *resumeFlag) String() string { return r.id }
func (r *resumeFlag) Set(v string) error {
	r.id, r.set = v, true
	return nil
}

type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	*s = append(*s, permission.ParseList(v)...)
	return nil
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.provider, "provider", "", "model provider: anthropic or openai (default: from config or whichever API key is set)")
	fs.StringVar(&c.model, "model", "", "model name")
	fs.StringVar(&c.baseURL, "base-url", "", "API base URL (Ollama, vLLM, llama.cpp, OpenRouter, a proxy)")
	fs.StringVar(&c.configPath, "config", "", "config file (default $XDG_CONFIG_HOME/atomic/config.json)")
	fs.StringVar(&c.permissionMode, "permission-mode", "", "default, acceptEdits, bypassPermissions, plan or dontAsk (default mode; what would be asked is denied)")
	fs.Var(&c.allowed, "allowed-tools", "tools allowed without asking, e.g. 'read,bash(go test:*)'")
	fs.Var(&c.disallowed, "disallowed-tools", "tools never allowed, e.g. 'bash(rm:*)'")
	fs.Var(&c.addDirs, "add-dir", "extra folder the file tools may use (repeatable)")
	fs.StringVar(&c.effort, "effort", "", "how hard the model thinks first: low, medium, high or max (Anthropic extended thinking, OpenAI reasoning effort; sub-agents inherit it unless their file says effort:; default none)")
	fs.IntVar(&c.maxTurns, "max-turns", 0, "model turns per agent turn (default 100)")
	fs.IntVar(&c.maxSubagents, "max-subagents", 0, "local sub-agents running at once (default 5)")
	fs.IntVar(&c.maxDepth, "max-depth", 0, "levels of sub-agents below the lead: a sub-agent may start its own up to this depth (default 3; 1: only the lead starts sub-agents)")
	fs.IntVar(&c.maxRemote, "max-remote-tasks", 0, "sub-agents on NATS workers at once (default 0: as many as the workers run; they take none of --max-subagents' slots)")
	fs.IntVar(&c.maxTeammates, "max-teammates", 0, "teammates at once (default 10; setting it enables teams)")
	fs.BoolVar(&c.teams, "teams", false, "offer the lead agent teams: long-lived teammates it messages (config teams; on with --demo or --max-teammates)")
	fs.DurationVar(&c.timeout, "timeout", 0, "wall-clock limit of a headless run, e.g. 10m")
	fs.BoolVar(&c.demo, "demo", false, "use the built-in demo model (no API key needed)")
	fs.StringVar(&c.backend, "backend", "", "what runs the lead: "+backend.Names()+" (default native, Atomic's own loop; see atomic backends)")
	fs.StringVar(&c.backendBin, "backend-bin", "", "the backend CLI's binary, when it is not on PATH")
	fs.StringVar(&c.sandbox, "sandbox", "", "what commands the agents run may do, enforced by the kernel: read-only, workspace-write (default) or off")
	fs.BoolVar(&c.allowNetwork, "allow-network", false, "let sandboxed commands use the network")
	fs.BoolVar(&c.noPersistence, "no-session-persistence", false, "do not save this session in the session store ($XDG_STATE_HOME/atomic)")
	fs.BoolVar(&c.altScreen, "alt-screen", false, "chat UI: draw on the alternate screen, scrolled with PgUp/PgDn (default: the transcript stays in the terminal's scrollback)")
	fs.BoolVar(&c.cont, "continue", false, "continue the last session of this directory")
	fs.Var(&c.mcpConfigs, "mcp-config", "MCP servers `FILE` (or JSON) like Claude Code's .mcp.json, read after ~/.config/atomic/mcp.json and ./.mcp.json (repeatable)")
	fs.BoolVar(&c.strictMCP, "strict-mcp-config", false, "use only the MCP servers of --mcp-config")
	fs.BoolVar(&c.trustSettings, "trust-project-settings", false, "apply what the project's .claude/settings*.json loosen (allow rules, additionalDirectories, acceptEdits, env) and run their hooks, for this run; their deny and ask rules always apply")
	fs.Var(&c.trustMCP, "trust-project-mcp", "start the workspace's .mcp.json servers for this run without 'atomic mcp trust' (all, or =NAME,NAME)")
	c.nats.register(fs)
	c.registerHabits(fs)
	fs.Var(&c.resume, "resume", "continue saved session `ID` (atomic sessions lists them; in the chat UI, without an ID: pick one)")
}

// parse parses args into fs, on which c's flags are registered. -h and
// --help print synopsis and the flags to stdout; a bad flag or a limit
// below 1 is named on stderr. ok is false when the command is to exit now
// with code.
func (c *common) parse(fs *flag.FlagSet, args []string, ios IOStreams, synopsis string) (code int, ok bool) {
	if code, ok := parseFlags(fs, habitArgs(args), ios, synopsis); !ok {
		return code, false
	}
	if err := c.applyHabits(fs); err != nil {
		fmt.Fprintf(ios.Err, "atomic: %v\n", err)
		return 2, false
	}
	if err := c.checkLimits(fs); err != nil {
		fmt.Fprintf(ios.Err, "atomic: %v\n", err)
		return 2, false
	}
	return 0, true
}

// checkLimits rejects limits given below 1; a limit not given takes the
// config file's value or the default.
func (c *common) checkLimits(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil {
			return
		}
		switch f.Name {
		case "max-turns", "max-subagents", "max-teammates", "max-depth":
			if v := f.Value.(flag.Getter).Get().(int); v < 1 {
				err = fmt.Errorf("--%s: must be at least 1, got %d", f.Name, v)
			}
		case "max-remote-tasks":
			if c.maxRemote < 0 {
				err = fmt.Errorf("--max-remote-tasks: must be 0 (no cap) or more, got %d", c.maxRemote)
			}
		case "effort":
			if _, e := provider.ParseEffort(c.effort); e != nil {
				err = fmt.Errorf("--effort: %w", e)
			}
		case "timeout":
			if c.timeout <= 0 {
				err = fmt.Errorf("--timeout: must be more than 0, got %s", c.timeout)
			}
		}
	})
	return err
}

// setup is everything resolved from flags, env and config.
type setup struct {
	file      config.File
	ps        config.ProviderSettings
	prov      provider.Provider
	gate      *permission.Gate
	types     *spawn.Registry
	workspace tools.Workspace
	memory    *memory.Memory
	commands  *commands.Set
	skills    *skills.Set
	// claudeModel is Claude Code settings' model and its file ("": none).
	claudeModel, claudeModelSource string
	warnings                       []string
	// mcp runs the MCP servers (started right after resolve); mcpBudget
	// is how long the first request waits for them.
	mcp       *mcp.Manager
	mcpBudget time.Duration
	// mcpHeld are the project's MCP servers not started for want of the
	// user's approval; mcpHeldWarning names them and how to approve.
	mcpHeld        []mcp.Server
	mcpHeldWarning string
	// sandbox confines bash commands (nil: off); closed at the end of
	// the session.
	sandbox *sandbox.Sandbox
	// remote sends sub-agents to NATS workers (--nats); nil: all local.
	remote *remote.Dispatcher
	// getenv is the environment with the user's Claude Code settings env
	// over it (see applyClaudeSettings).
	getenv func(string) string
	// hooks are the Claude Code settings files' hooks (the project's
	// only when trusted).
	hooks hooks.Config
	// claude is what the Claude Code settings files said (read once: the
	// MCP trust reads its keys from it).
	claude *claudesettings.Settings
	// provClose ends what the provider runs (atomic-openai); nil: nothing.
	provClose func() error
}

// closeProvider ends what the provider runs, if anything.
func (s *setup) closeProvider() {
	if s.provClose != nil {
		_ = s.provClose()
	}
}

// configFile loads --config, else the user's config.json if there is one.
func (c *common) configFile(io IOStreams) (config.File, error) {
	path, optional := c.configPath, false
	if path == "" {
		path, optional = filepath.Join(config.UserDir(io.Getenv), "config.json"), true
	}
	if len(c.sets) == 0 {
		return config.LoadFile(path, optional)
	}
	data, err := readOptional(path, optional)
	if err != nil {
		return config.File{}, err
	}
	return withOverrides(path, data, c.sets)
}

func (c *common) resolve(io IOStreams, asker permission.Asker) (*setup, error) {
	s := &setup{getenv: io.Getenv}
	cs, err := c.claudeSettings(io, s)
	if err != nil {
		return nil, err
	}
	s.claude = cs
	f, err := c.configFile(io)
	if err != nil {
		return nil, err
	}
	s.file = f
	s.claudeModel, s.claudeModelSource = cs.Model, cs.ModelSource
	effort, from := c.effort, "--effort"
	if effort == "" {
		effort, from = f.Effort, "config effort"
	}
	if c.level, err = provider.ParseEffort(effort); err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	if c.maxTurns == 0 {
		c.maxTurns = f.MaxTurns
	}
	if c.maxSubagents == 0 {
		c.maxSubagents = f.MaxSubagents
	}
	if c.maxDepth == 0 {
		c.maxDepth = f.MaxDepth
	}
	if c.maxTeammates == 0 {
		c.maxTeammates = f.MaxTeammates
	}
	// Teams are offered when asked for, or configured by a teammate cap
	// (and with the demo model, which shows one: newRuntime).
	c.teams = c.teams || f.Teams || c.maxTeammates > 0
	if c.maxRemote == 0 {
		c.maxRemote = f.MaxRemoteTasks
	}
	mode, noPrompts, err := cs.ResolveMode(c.permissionMode, f.PermissionMode)
	if err != nil {
		return nil, err
	}
	if noPrompts { // dontAsk: what would be asked is denied
		asker = nil
	}
	gate, err := permission.NewGate(permission.Options{
		Mode: permission.Mode(mode), Allowed: append(append([]string{}, f.AllowedTools...), c.allowed...),
		Disallowed: append(append([]string{}, f.DisallowedTools...), c.disallowed...), Asker: asker, Root: io.Dir,
		Settings: cs.Rules, AllowedFrom: c.fromConfig(io, len(f.AllowedTools)), DisallowedFrom: c.fromConfig(io, len(f.DisallowedTools)),
	})
	if err != nil {
		return nil, err
	}
	s.gate = gate
	s.hooks = cs.Hooks
	if err := checkAddDirs(io.Dir, c.addDirs); err != nil {
		return nil, err
	}
	if err := c.checkMCPFiles(io); err != nil {
		return nil, err
	}
	s.workspace = tools.Workspace{Root: io.Dir, Files: c.files, Hidden: gate.ReadDenied, Secrets: append(sandbox.DefaultSecrets(io.Getenv("HOME")), config.UserDir(io.Getenv)),
		Env: envList(cs.CommandEnv), Added: &tools.Roots{}}
	for _, d := range append(append([]string{}, c.addDirs...), cs.Dirs...) {
		if !filepath.IsAbs(d) {
			d = filepath.Join(io.Dir, d)
		}
		s.workspace.ExtraRoots = append(s.workspace.ExtraRoots, d)
	}
	places := dotdirs.Places{Dir: io.Dir, Home: io.Getenv("HOME"), ConfigDir: config.UserDir(io.Getenv)}
	agentDirs := dotdirs.Find("agents", places)
	types, problems := spawn.LoadTypes(dotdirs.Paths(agentDirs), runtime.CoreTools(s.workspace).Names())
	for _, p := range problems {
		var w *spawn.AgentFileWarning
		if errors.As(p, &w) {
			s.warnings = append(s.warnings, fmt.Sprintf("agent file %v", p))
			continue
		}
		s.warnings = append(s.warnings, fmt.Sprintf("skipped agent file: %v", p))
	}
	if c.agents != "" {
		inline, warnings, err := inlineAgents(c.agents, runtime.CoreTools(s.workspace).Names())
		if err != nil {
			return nil, err
		}
		for _, t := range inline {
			types.Add(t)
		}
		s.warnings = append(s.warnings, warnings...)
	}
	if !c.trustSettings {
		if held := untrustedAgentHooks(types, agentDirs); len(held) > 0 {
			s.warnings = append(s.warnings, "hooks in the project's agent files "+strings.Join(held, ", ")+" do not run: the project is not trusted (--trust-project-settings)")
		}
	}
	s.types = types
	s.memory = memory.Load(memory.Places{Dir: io.Dir, Home: io.Getenv("HOME"), ConfigDir: config.UserDir(io.Getenv),
		Managed: memory.ManagedPath(goruntime.GOOS), CodexHome: io.Getenv("CODEX_HOME")})
	for _, p := range s.memory.Problems {
		s.warnings = append(s.warnings, fmt.Sprintf("memory: %v", p))
	}
	cmds, problems := commands.Load(dotdirs.Find("commands", places), ui.FixedCommands())
	for _, p := range problems {
		s.warnings = append(s.warnings, fmt.Sprintf("skipped command file: %v", p))
	}
	s.commands = cmds
	loadSkills(dotdirs.Find("skills", places), c.trustSettings, s)
	if err := c.openSandbox(io, s); err != nil {
		return nil, err
	}
	return s, nil
}

// openSandbox prepares the session's command sandbox from --sandbox and
// --allow-network, else the config file. Where the kernel cannot sandbox,
// the session runs without and warns once.
func (c *common) openSandbox(io IOStreams, s *setup) error {
	name, from := c.sandbox, "--sandbox"
	if name == "" {
		name, from = s.file.Sandbox, "config sandbox"
	}
	mode, err := sandbox.ParseMode(name)
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	secrets := append([]string{}, s.workspace.Secrets...) // the stores the file tools keep out of too
	if dir, err := observe.StateDir(io.Getenv); err == nil {
		secrets = append(secrets, dir)
	}
	writable := append([]string{io.Dir}, s.workspace.ExtraRoots...)
	denied := s.gate.ReadDenyPaths()
	secrets = append(secrets, readDenySecrets(denied, writable)...)
	if s.gate.HasReadDeny() {
		found, complete := readDeniedInWorkspace(writable, s.gate.ReadDenied)
		denied = append(denied, found...)
		if !complete {
			s.warnings = append(s.warnings, fmt.Sprintf("the workspace has over %d files: the sandbox hides from commands only the Read deny rules' files found among the first %d (the file tools refuse them all)", maxHiddenWalk, maxHiddenWalk))
		}
	}
	sb, err := sandbox.New(sandbox.Config{
		Mode: mode, Network: c.allowNetwork || s.file.SandboxNetwork,
		Writable: writable, Secrets: secrets, Hidden: denied,
		CacheDir: sandboxCache(io.Getenv),
	})
	if err == nil && sb != nil && mode == sandbox.WorkspaceWrite {
		s.warnings = append(s.warnings, sandbox.Overlaps(writable, secrets)...)
	}
	var unsupported *sandbox.UnsupportedError
	switch {
	case errors.As(err, &unsupported):
		s.warnings = append(s.warnings, err.Error())
	case err != nil:
		return err
	case !sb.Hides():
		s.warnings = append(s.warnings, "the sandbox cannot keep the Read deny rules' files inside the workspace from commands (hiding them needs a mount namespace, which Atomic can make only as root): the file tools still refuse them, bash does not")
	}
	s.sandbox, s.workspace.Sandbox = sb, sb
	return nil
}

// sandboxCache is the build cache sandboxed commands write instead of the
// user's own (~/.cache/go-build and the like, which they may not write):
// Atomic's, under the user's cache folder, kept across sessions.
func sandboxCache(getenv func(string) string) string {
	base := getenv("XDG_CACHE_HOME")
	if base == "" {
		if h := getenv("HOME"); h != "" {
			base = filepath.Join(h, ".cache")
		}
	}
	if base == "" {
		return ""
	}
	return filepath.Join(base, "atomic", "sandbox-cache")
}

// provider resolves and builds the model provider.
func (c *common) buildProvider(io IOStreams, s *setup) error {
	getenv := io.Getenv
	if s.getenv != nil {
		getenv = s.getenv
	}
	if err := c.demoProvider(); err != nil {
		return err
	}
	ps, err := config.Resolve(config.Flags{Provider: c.provider, Model: c.model, BaseURL: c.baseURL, Demo: c.demo}, s.file, getenv)
	if err != nil {
		return err
	}
	if m, warning := settingsModel(s, c.model, ps.Provider); m != "" {
		ps.Model = m
	} else if warning != "" {
		s.warnings = append(s.warnings, warning)
	}
	p, err := config.NewProvider(ps)
	if err != nil {
		return err
	}
	if cl, ok := p.(interface{ Close() error }); ok {
		s.provClose = cl.Close
	}
	if c.fallbackModel != "" && ps.Provider != "demo" {
		if c.fallbackModel == ps.Model {
			return fmt.Errorf("--fallback-model %s is the model itself: name another", c.fallbackModel)
		}
		p = &fallbackProvider{Provider: p, fallback: c.fallbackModel}
	}
	s.ps, s.prov = ps, p
	return nil
}

// demoProvider refuses a --provider given with --demo, which would be
// ignored: an unknown one is named as such, a known one is in the way.
func (c *common) demoProvider() error {
	switch p := strings.ToLower(c.provider); {
	case !c.demo || p == "" || p == "demo":
		return nil
	case p == "anthropic" || p == "openai":
		return fmt.Errorf("--demo uses the built-in demo model: drop --provider %s", c.provider)
	default:
		return fmt.Errorf("unknown provider %q: want anthropic, openai or demo", c.provider)
	}
}

// checkAddDirs names an --add-dir folder that does not exist (or is no
// folder), before the sandbox would fail on it in its own words.
func checkAddDirs(root string, dirs []string) error {
	for _, d := range dirs {
		p := d
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("--add-dir %s: no such folder", d)
		case err != nil:
			return fmt.Errorf("--add-dir %s: %w", d, err)
		case !fi.IsDir():
			return fmt.Errorf("--add-dir %s: not a folder", d)
		}
	}
	return nil
}
