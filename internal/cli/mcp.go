package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/claudesettings"
	"github.com/atomic-agent/atomic/internal/config"
	"github.com/atomic-agent/atomic/internal/mcp"
)

// pathList is a repeatable flag whose values are kept whole (file names
// may hold commas; --mcp-config may be JSON itself).
type pathList []string

func (p *pathList) String() string     { return strings.Join(*p, ",") }
func (p *pathList) Set(v string) error { *p = append(*p, v); return nil }

// mcpSources lists the MCP configuration files of a run, later ones
// winning by server name: the user's mcp.json, the project's .mcp.json,
// the config file's mcp_config, then each --mcp-config. With
// --strict-mcp-config only the flags' files count, as in Claude Code.
func (c *common) mcpSources(ios IOStreams, f config.File) []mcp.Source {
	abs := func(p string) string {
		if strings.HasPrefix(strings.TrimSpace(p), "{") || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(ios.Dir, p)
	}
	var out []mcp.Source
	if !c.strictMCP {
		// Claude Code's "claude mcp add" servers: user scope lowest, local
		// scope (this folder's) over the project's .mcp.json, as there.
		// Where the model can write the file (Atomic run in the home
		// folder) they need approval like the project's.
		claudeJSON := claudeJSONPath(ios.Getenv)
		held := claudeJSON != "" && mcp.Within(claudeJSON, c.writableRoots(ios)...)
		if claudeJSON != "" {
			out = append(out, mcp.Source{Path: claudeJSON, Optional: true, ClaudeJSON: true, Project: held})
		}
		if dir := config.UserDir(ios.Getenv); dir != "" {
			out = append(out, mcp.Source{Path: filepath.Join(dir, "mcp.json"), Optional: true})
		}
		out = append(out, mcp.Source{Path: filepath.Join(ios.Dir, ".mcp.json"), Optional: true, Project: true})
		if claudeJSON != "" {
			out = append(out, mcp.Source{Path: claudeJSON, Optional: true, ClaudeJSON: true, ClaudeProject: ios.Dir, Project: held})
		}
		for _, p := range f.MCPConfig {
			out = append(out, mcp.Source{Path: abs(p)})
		}
	}
	for _, p := range c.mcpConfigs {
		out = append(out, mcp.Source{Path: abs(p)})
	}
	return out
}

// claudeJSONPath is Claude Code's ~/.claude.json ($CLAUDE_CONFIG_DIR's
// .claude.json when set); "" when no home is known.
func claudeJSONPath(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".claude.json")
	}
	return ""
}

// mcpBudget is how long the lead's first request waits for MCP servers:
// MCP_TIMEOUT (milliseconds, as Claude Code reads it), else the config
// file's mcp_startup_timeout (seconds), else mcp.DefaultStartupBudget.
func mcpBudget(getenv func(string) string, f config.File) (time.Duration, error) {
	if v := getenv("MCP_TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return 0, fmt.Errorf("MCP_TIMEOUT: want a number of milliseconds above 0, got %q", v)
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	if d := f.MCPStartupTimeout(); d > 0 {
		return d, nil
	}
	return mcp.DefaultStartupBudget, nil
}

// mcpToolTimeout is how long an MCP tool call may go unanswered:
// MCP_TOOL_TIMEOUT (milliseconds, as Claude Code reads it), else the
// config file's mcp_tool_timeout (seconds), else mcp.DefaultToolTimeout.
func mcpToolTimeout(getenv func(string) string, f config.File) (time.Duration, error) {
	if v := getenv("MCP_TOOL_TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return 0, fmt.Errorf("MCP_TOOL_TIMEOUT: want a number of milliseconds above 0, got %q", v)
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	if d := f.MCPToolTimeout(); d > 0 {
		return d, nil
	}
	return mcp.DefaultToolTimeout, nil
}

// startMCP reads the MCP configuration (problems become warnings, the bad
// server or file skipped) and starts the servers in the background; warn
// is told about a server that fails or is slow. The workspace's project
// servers the user has not approved are not started: they are left in
// s.mcpHeld, with the warning naming them in s.mcpHeldWarning (a headless
// run prints it, the chat UI asks instead). The caller closes the manager
// (the runtime does, once it has it).
func (c *common) startMCP(ctx context.Context, ios IOStreams, s *setup, warn func(string)) {
	servers, errs := mcp.Load(c.mcpSources(ios, s.file), envLookup(ios))
	trust, terrs := c.mcpTrust(ios, s.claude)
	for _, err := range terrs {
		s.warnings = append(s.warnings, err.Error())
	}
	servers, s.mcpHeld, s.mcpHeldWarning = trust.Filter(servers)
	for _, x := range c.extraMCP { // an ACP client's: the user's own
		servers = slices.DeleteFunc(servers, func(s mcp.Server) bool { return s.Name == x.Name })
		servers = append(servers, x)
	}
	for _, err := range errs {
		s.warnings = append(s.warnings, "mcp config "+err.Error())
	}
	budget, err := mcpBudget(ios.Getenv, s.file)
	if err != nil {
		s.warnings = append(s.warnings, err.Error())
		budget = mcp.DefaultStartupBudget
	}
	s.mcpBudget = budget
	toolTimeout, err := mcpToolTimeout(ios.Getenv, s.file)
	if err != nil {
		s.warnings = append(s.warnings, err.Error())
	}
	s.mcp = mcp.Start(ctx, servers, mcp.Options{Warn: warn, Version: Version, ToolTimeout: toolTimeout})
}

// mcpTrust gathers what approves the workspace's project MCP servers:
// the remembered approvals, ~/.claude/settings.json and
// --trust-project-mcp. Problems reading them are returned; nothing
// unreadable approves anything. The Claude Code settings files cs read
// (nil: none yet) are not read again.
func (c *common) mcpTrust(ios IOStreams, cs *claudesettings.Settings) (mcp.Trust, []error) {
	t := mcp.Trust{Workspace: mcp.Workspace(ios.Dir), FlagAll: c.trustMCP.all, FlagNames: c.trustMCP.names}
	var errs []error
	// What the file tools can write (Atomic run in the home folder, or
	// --add-dir ~) cannot approve: the model would approve itself.
	writable := c.writableRoots(ios)
	path := approvalsPath(ios)
	if path != "" && mcp.Within(path, writable...) {
		t.Unused = append(t.Unused, path+" is inside the workspace, where the model can write it, so its approvals are not used")
		path = ""
	}
	if path != "" {
		a, err := mcp.LoadApprovals(path)
		if err != nil {
			errs = append(errs, err)
		}
		t.Approvals = a
	}
	claudeDir := mcp.ClaudeUserDir(ios.Getenv)
	if claudeDir != "" && mcp.Within(filepath.Join(claudeDir, "settings.json"), writable...) {
		t.Unused = append(t.Unused, filepath.Join(claudeDir, "settings.json")+" is inside the workspace, where the model can write it, so it approves nothing")
		claudeDir = ""
	}
	claude, cerrs := mcp.ClaudeSettingsOf(claudeDir, ios.Dir, func(path string) ([]byte, error) {
		if data, exists, known := cs.Content(path); known {
			if !exists {
				return nil, fs.ErrNotExist
			}
			return data, nil
		}
		return os.ReadFile(path)
	})
	for _, err := range cerrs {
		errs = append(errs, fmt.Errorf("claude settings %w", err))
	}
	t.Claude = claude
	return t, errs
}

// writableRoots are the folders the file tools may write: the workspace
// and each --add-dir.
func (c *common) writableRoots(ios IOStreams) []string {
	roots := []string{ios.Dir}
	for _, d := range c.addDirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(ios.Dir, d)
		}
		roots = append(roots, d)
	}
	return roots
}

// approvalsPath is the file of remembered project server approvals, in
// Atomic's config folder ("" when there is none).
func approvalsPath(ios IOStreams) string {
	dir := config.UserDir(ios.Getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, mcp.ApprovalsFile)
}

// trustFlag is --trust-project-mcp: given bare, every project server of
// the workspace's .mcp.json starts for this run; given names
// (--trust-project-mcp=a,b), those.
type trustFlag struct {
	all   bool
	names []string
}

func (f *trustFlag) String() string {
	if f == nil {
		return ""
	}
	if f.all {
		return "true"
	}
	return strings.Join(f.names, ",")
}

func (f *trustFlag) Set(v string) error {
	switch v {
	case "true":
		f.all = true
	case "false":
		f.all, f.names = false, nil
	case "":
		return fmt.Errorf("want server names (--trust-project-mcp=a,b) or none for all")
	default:
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				f.names = append(f.names, n)
			}
		}
	}
	return nil
}

// IsBoolFlag lets --trust-project-mcp be given without a value.
func (f *trustFlag) IsBoolFlag() bool { return true }

// lockedWriter serialises writes: warnings come from server goroutines
// while the run writes its own output.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// checkMCPFiles fails on an --mcp-config file that cannot be read: one
// given by name on the command line is meant, not optional.
func (c *common) checkMCPFiles(ios IOStreams) error {
	for _, p := range c.mcpConfigs {
		if strings.HasPrefix(strings.TrimSpace(p), "{") {
			continue // JSON itself: its problems are reported as it is read
		}
		path := p
		if !filepath.IsAbs(path) {
			path = filepath.Join(ios.Dir, path)
		}
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("--mcp-config %s: no such file", p)
		}
		if err != nil {
			return fmt.Errorf("--mcp-config %s: %w", p, err)
		}
		f.Close()
	}
	return nil
}
