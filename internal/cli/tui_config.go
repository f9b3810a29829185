package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/atomic-agent/atomic/internal/backend/native"
	"github.com/atomic-agent/atomic/internal/config"
	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/sandbox"
	"github.com/atomic-agent/atomic/internal/subagent"
	"github.com/atomic-agent/atomic/internal/team"
	"github.com/atomic-agent/atomic/internal/ui"
)

// runState is what the running session answers: *runtime.Runtime.
type runState interface {
	Model() string
	Provider() provider.Provider
	MCP() []mcp.Status
}

// configPath is the config file read: --config, else the user's
// config.json when there is one ("" when none).
func (t *tuiSession) configPath() string {
	if t.c.configPath != "" {
		return t.c.configPath
	}
	p := filepath.Join(config.UserDir(t.ios.Getenv), "config.json")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// from names where a setting came from: the first flag of flags given on
// the command line, else the config file when inFile, else def.
func (t *tuiSession) from(inFile bool, def string, flags ...string) string {
	for _, f := range flags {
		if t.given[f] {
			return "--" + f
		}
	}
	if inFile {
		if p := t.configPath(); p != "" {
			return p
		}
		return "config (-c key=value)"
	}
	return def
}

// Settings are the effective settings of the session, each with the flag
// or file it came from.
func (t *tuiSession) Settings() []ui.Setting {
	c, s, f := t.c, t.s, t.s.file
	var rows []ui.Setting
	add := func(name, value, from string) { rows = append(rows, ui.Setting{Name: name, Value: value, From: from}) }
	cfg := t.configPath()
	if cfg == "" {
		cfg = "none"
	}
	add("config file", cfg, t.from(false, "default location", "config"))
	model, modelFrom := s.ps.Model, t.from(f.Model != "", "the provider's default", "model")
	switch {
	case t.run != nil && t.run.Model() != s.ps.Model:
		model, modelFrom = t.run.Model(), "/model (this session)"
	case !t.given["model"] && s.claudeModel != "" && s.claudeModel == s.ps.Model:
		modelFrom = s.claudeModelSource
	}
	if model != "" {
		add("model", model, modelFrom)
	}
	if s.ps.Provider != "" {
		add("provider", s.ps.Provider, s.ps.Source)
	}
	if s.ps.BaseURL != "" {
		add("base url", s.ps.BaseURL, t.from(f.BaseURL == s.ps.BaseURL, "environment", "base-url"))
	}
	add("backend", c.backendName(s), t.from(f.Backend != "", "default", "backend"))
	effort := c.effort
	if effort == "" {
		effort = f.Effort
	}
	if effort == "" {
		effort = "none"
	}
	add("effort", effort, t.from(f.Effort != "", "default", "effort"))
	mode := string(s.gate.Mode())
	modeFrom := t.from(f.PermissionMode != "", "default", "permission-mode", "dangerously-skip-permissions", "full-auto")
	if modeFrom == "default" && mode != "default" {
		modeFrom = "Shift+Tab"
		if s.claude != nil && s.claude.ModeSource != "" && mode == s.claude.Mode {
			modeFrom = s.claude.ModeSource + " (defaultMode)"
		}
	}
	add("permission mode", mode, modeFrom)
	limit := func(name string, v, inFile, def int, flag string) {
		if v == 0 {
			add(name, strconv.Itoa(def), "default")
			return
		}
		add(name, strconv.Itoa(v), t.from(inFile != 0 && inFile == v, "default", flag))
	}
	limit("max turns", c.maxTurns, f.MaxTurns, native.DefaultMaxTurns, "max-turns")
	limit("max sub-agents", c.maxSubagents, f.MaxSubagents, subagent.DefaultMaxConcurrent, "max-subagents")
	limit("max depth", c.maxDepth, f.MaxDepth, subagent.DefaultMaxDepth, "max-depth")
	teams := "off"
	if c.teams || c.demo {
		teams = "on"
	}
	teamsFrom := t.from(f.Teams, "default", "teams")
	if c.demo && !c.teams {
		teamsFrom = "--demo"
	} else if teamsFrom == "default" && c.teams {
		teamsFrom = "max_teammates"
	}
	add("teams", teams, teamsFrom)
	if c.teams || c.demo {
		limit("max teammates", c.maxTeammates, f.MaxTeammates, team.DefaultMaxTeammates, "max-teammates")
	}
	sb := string(s.sandbox.Mode())
	if s.sandbox.Mode() == sandbox.Off {
		sb = "off: commands run unconfined"
	}
	add("sandbox", sb, t.from(f.Sandbox != "", "default", "sandbox", "full-auto"))
	network := "off"
	if c.allowNetwork || f.SandboxNetwork {
		network = "on"
	}
	add("sandbox network", network, t.from(f.SandboxNetwork, "default", "allow-network"))
	if len(s.workspace.ExtraRoots) > 0 {
		add("extra folders", strings.Join(s.workspace.ExtraRoots, ", "), t.from(false, "Claude Code settings (additionalDirectories)", "add-dir"))
	}
	if added := s.workspace.Added.List(); len(added) > 0 {
		add("added folders", strings.Join(added, ", "), "/add-dir (this session)")
	}
	add("session store", t.stored.String(c, t.ios), t.from(false, "default", "no-session-persistence"))
	if url := firstNonEmpty(c.nats.url, f.NATSURL); url != "" {
		add("nats", url, t.from(f.NATSURL != "", "", "nats"))
	}
	if len(c.mcpConfigs) > 0 || len(f.MCPConfig) > 0 {
		add("mcp config", strings.Join(append(append([]string{}, f.MCPConfig...), c.mcpConfigs...), ", "), t.from(len(f.MCPConfig) > 0, "", "mcp-config"))
	}
	if s.claude != nil && len(s.claude.Files) > 0 { // every folder up to the repository root, and ~
		add("Claude Code settings", strings.Join(s.claude.Files, ", "), "the repository root down to the working directory, and ~/.claude")
	}
	add("trust project settings", fmt.Sprint(c.trustSettings), t.from(false, "default", "trust-project-settings"))
	return rows
}

// fromConfig names the config file n times: the source of the config's
// rules, listed before the flags' in the gate (/permissions).
func (c *common) fromConfig(io IOStreams, n int) []string {
	path := c.configPath
	if path == "" {
		path = filepath.Join(config.UserDir(io.Getenv), "config.json")
	}
	if len(c.sets) > 0 {
		path += " (or -c key=value)"
	}
	out := make([]string, n)
	for i := range out {
		out[i] = path
	}
	return out
}
