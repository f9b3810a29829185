package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/atomic-agent/atomic/internal/dotdirs"
)

// ClaudeSettings are the MCP approval keys of Claude Code's settings
// files, as Atomic honours them.
//
// Claude Code reads enableAllProjectMcpServers, enabledMcpjsonServers and
// disabledMcpjsonServers from the user's ~/.claude/settings.json and from
// the project's .claude/settings.json and .claude/settings.local.json
// (Atomic: of every folder from the repository root down to the workspace).
// The project's two files are in the workspace, which the model can edit
// (in acceptEdits without a question): a model that writes a .mcp.json
// could write settings.local.json approving it in the same turn. So an
// approval counts only from the user's settings (outside the workspace,
// out of the sandbox's reach); the project files' disabledMcpjsonServers
// count (turning a server off is always safe), and their approvals are
// named in the warning as not counted.
type ClaudeSettings struct {
	// EnableAll and Enabled approve project servers (user settings only).
	EnableAll bool
	Enabled   []string
	// Disabled keeps project servers from starting (any settings file).
	Disabled []string
	// Ignored names the project files' approvals that do not count, for
	// the warning ("enableAllProjectMcpServers in .claude/settings.local.json").
	Ignored []string
}

type claudeMCPKeys struct {
	EnableAll *bool    `json:"enableAllProjectMcpServers"`
	Enabled   []string `json:"enabledMcpjsonServers"`
	Disabled  []string `json:"disabledMcpjsonServers"`
}

// ClaudeUserDir is Claude Code's user folder: $CLAUDE_CONFIG_DIR, else
// ~/.claude ("" when neither is known).
func ClaudeUserDir(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".claude")
	}
	return ""
}

// ReadClaudeSettings reads the MCP keys of the user's settings.json in
// userDir and of the .claude/settings.json and .claude/settings.local.json
// of the workspace and each folder up to its repository root. A missing file is no settings; a malformed
// one is an error "path: why" and counts as none.
func ReadClaudeSettings(userDir, workspace string) (ClaudeSettings, []error) {
	return ClaudeSettingsOf(userDir, workspace, os.ReadFile)
}

// ClaudeSettingsOf is ReadClaudeSettings with the files' contents from
// read (an error satisfying os.ErrNotExist: no file), so a run reads each
// settings file once (package claudesettings has read them).
func ClaudeSettingsOf(userDir, workspace string, read func(path string) ([]byte, error)) (ClaudeSettings, []error) {
	var out ClaudeSettings
	var errs []error
	if userDir != "" {
		k, err := readClaudeKeys(read, filepath.Join(userDir, "settings.json"))
		if err != nil {
			errs = append(errs, err)
		}
		out.EnableAll = k.EnableAll != nil && *k.EnableAll
		out.Enabled = k.Enabled
		out.Disabled = append(out.Disabled, k.Disabled...)
	}
	// Every folder up to the repository root, as package claudesettings
	// reads them: a root's disabledMcpjsonServers holds from a subfolder,
	// and a parent folder's approvals count no more than the workspace's
	// (the repository is where a cloned or edited file comes from).
	var paths []string
	for _, d := range dotdirs.Project(workspace) {
		for _, name := range []string{"settings.json", "settings.local.json"} {
			p := filepath.Join(d, ".claude", name)
			if userDir != "" && p == filepath.Join(userDir, "settings.json") { // the user's, read above
				continue
			}
			paths = append(paths, p)
		}
	}
	for _, path := range paths {
		rel := path
		if r, err := filepath.Rel(workspace, path); err == nil {
			rel = r
		}
		k, err := readClaudeKeys(read, path)
		if err != nil {
			errs = append(errs, err)
		}
		out.Disabled = append(out.Disabled, k.Disabled...)
		if k.EnableAll != nil && *k.EnableAll {
			out.Ignored = append(out.Ignored, "enableAllProjectMcpServers in "+rel)
		}
		if len(k.Enabled) > 0 {
			out.Ignored = append(out.Ignored, "enabledMcpjsonServers in "+rel)
		}
	}
	return out, errs
}

func readClaudeKeys(read func(string) ([]byte, error), path string) (claudeMCPKeys, error) {
	var k claudeMCPKeys
	data, err := read(path)
	if errors.Is(err, os.ErrNotExist) {
		return k, nil
	}
	if err != nil {
		return k, fmt.Errorf("%s: %w", path, err)
	}
	if err := json.Unmarshal(data, &k); err != nil {
		return claudeMCPKeys{}, fmt.Errorf("%s: %s (its MCP settings are not used)", path, jsonProblem(data, err))
	}
	return k, nil
}
