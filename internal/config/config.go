// Package config resolves the settings of a run from, in order of
// precedence, command-line flags, environment variables, the config file and
// defaults, and builds the model provider they name.
package config

import (
	"path/filepath"
	"time"

	"github.com/atomic-agent/atomic/internal/provider"
)

// File is the config file (JSON): $XDG_CONFIG_HOME/atomic/config.json, or
// ~/.config/atomic/config.json, or --config.
type File struct {
	Provider        string   `json:"provider,omitempty"`
	Model           string   `json:"model,omitempty"`
	BaseURL         string   `json:"base_url,omitempty"`
	APIKey          string   `json:"api_key,omitempty"`
	PermissionMode  string   `json:"permission_mode,omitempty"`
	AllowedTools    []string `json:"allowed_tools,omitempty"`
	DisallowedTools []string `json:"disallowed_tools,omitempty"`
	MaxTurns        int      `json:"max_turns,omitempty"`
	// Effort is how hard the model thinks first (see --effort).
	Effort       string `json:"effort,omitempty"`
	MaxSubagents int    `json:"max_subagents,omitempty"`
	// MaxDepth is how many levels of sub-agents may be below the lead.
	MaxDepth     int `json:"max_depth,omitempty"`
	MaxTeammates int `json:"max_teammates,omitempty"`
	// Teams offers the lead the team tools (see --teams).
	Teams bool `json:"teams,omitempty"`
	// NATSURL sends task sub-agents to remote workers through this NATS
	// server (see --nats).
	NATSURL string `json:"nats_url,omitempty"`
	// MaxRemoteTasks caps the sub-agents on NATS workers at once (see
	// --max-remote-tasks; 0: no cap).
	MaxRemoteTasks int    `json:"max_remote_tasks,omitempty"`
	Retry          *Retry `json:"retry,omitempty"`
	// Backend runs the lead: a name of backend.Known (default native); BackendBin
	// names the CLI's binary when it is not on PATH.
	Backend    string `json:"backend,omitempty"`
	BackendBin string `json:"backend_bin,omitempty"`
	// MCPConfig names MCP server files read after the user's mcp.json and
	// the project's .mcp.json, like --mcp-config.
	MCPConfig []string `json:"mcp_config,omitempty"`
	// MCPStartupSeconds is how long the first model request waits for MCP
	// servers still starting, in seconds (a number, like
	// retry.max_total_seconds); MCP_TIMEOUT (ms) overrides it.
	MCPStartupSeconds float64 `json:"mcp_startup_timeout,omitempty"`
	// MCPToolSeconds is how long an MCP tool call may go unanswered, in
	// seconds; MCP_TOOL_TIMEOUT (ms) overrides it.
	MCPToolSeconds float64 `json:"mcp_tool_timeout,omitempty"`
	// Sandbox confines bash commands: read-only, workspace-write (default)
	// or off; SandboxNetwork lets them use the network.
	Sandbox        string `json:"sandbox,omitempty"`
	SandboxNetwork bool   `json:"sandbox_network,omitempty"`
	// ContextWindow is the context window, in tokens, of a model the
	// pricing table does not know; ContextWindows sets it per model name,
	// over the table.
	ContextWindow  int64            `json:"context_window,omitempty"`
	ContextWindows map[string]int64 `json:"context_windows,omitempty"`
	// CompactThreshold is the share of the window (above 0, at most 1) at
	// which a native agent compacts its history; default 0.8, 1 turns
	// automatic compaction off.
	CompactThreshold float64 `json:"compact_threshold,omitempty"`
}

// MCPStartupTimeout is mcp_startup_timeout as a duration; 0 when unset.
func (f File) MCPStartupTimeout() time.Duration {
	return time.Duration(f.MCPStartupSeconds * float64(time.Second))
}

// MCPToolTimeout is mcp_tool_timeout as a duration; 0 when unset.
func (f File) MCPToolTimeout() time.Duration {
	return time.Duration(f.MCPToolSeconds * float64(time.Second))
}

// Retry configures provider retries.
type Retry struct {
	MaxAttempts int     `json:"max_attempts,omitempty"`
	BaseDelayMS int     `json:"base_delay_ms,omitempty"`
	MaxDelayMS  int     `json:"max_delay_ms,omitempty"`
	MaxTotalS   float64 `json:"max_total_seconds,omitempty"`
}

// Policy turns r into a RetryPolicy (zero fields take defaults).
func (r *Retry) Policy() provider.RetryPolicy {
	if r == nil {
		return provider.DefaultRetry()
	}
	return provider.RetryPolicy{
		MaxAttempts: r.MaxAttempts,
		BaseDelay:   time.Duration(r.BaseDelayMS) * time.Millisecond,
		MaxDelay:    time.Duration(r.MaxDelayMS) * time.Millisecond,
		MaxTotal:    time.Duration(r.MaxTotalS * float64(time.Second)),
	}
}

// UserDir is the user's Atomic config folder.
func UserDir(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "atomic")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "atomic")
	}
	return ""
}
