package ui

import (
	"fmt"
	"strings"
)

// SessionInfo is what /status, /export and /diff know of the session
// beyond the run: the CLI fills it.
type SessionInfo struct {
	SessionID string
	// Folder is the workspace root: /diff runs git there, /export writes
	// there.
	Folder string
	// Provider names the provider and where its settings came from.
	Provider string
	// Backend is where the lead runs (native, claude-code, …).
	Backend    string
	Permission string // the permission mode
	Sandbox    string // how commands are confined ("off": not at all)
	// Store says where the session is saved, or why it is not.
	Store string
}

// statusCommand lists what the session runs on.
func (m *Model) statusCommand() {
	info := m.info()
	var b strings.Builder
	b.WriteString("Status:")
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "\n  %-12s %s", k, v)
		}
	}
	row("model", m.model)
	row("provider", info.Provider)
	row("backend", info.Backend)
	row("session", info.SessionID)
	row("folder", info.Folder)
	row("permissions", info.Permission)
	row("sandbox", info.Sandbox)
	if m.cfg.Backend != nil {
		servers := m.cfg.Backend.MCP()
		mcp := "none"
		if len(servers) > 0 {
			parts := make([]string, len(servers))
			for i, s := range servers {
				parts[i] = s.Name + " (" + string(s.State) + ")"
			}
			mcp = strings.Join(parts, ", ")
		}
		row("mcp", mcp)
	}
	row("store", info.Store)
	m.note(noteInfo, b.String())
}

// info is the session's info (zero when the CLI gave none).
func (m *Model) info() SessionInfo {
	if m.cfg.Info == nil {
		return SessionInfo{}
	}
	return m.cfg.Info()
}
