package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ApprovalsFile is the file, in Atomic's config folder (never in a
// repository), that remembers which project servers the user approved.
const ApprovalsFile = "trusted-mcp.json"

// Approvals are the user's approvals of project MCP servers: per
// workspace, per server name, the fingerprint of the entry approved. An
// entry that changes no longer matches, so it is asked about again.
type Approvals struct {
	path     string
	Projects map[string]map[string]string `json:"projects"`
}

// LoadApprovals reads the approvals at path; a missing file is none.
func LoadApprovals(path string) (*Approvals, error) {
	a := &Approvals{path: path, Projects: map[string]map[string]string{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return a, nil
	}
	if err != nil {
		return a, fmt.Errorf("mcp approvals: %w", err)
	}
	if err := json.Unmarshal(data, a); err != nil {
		return &Approvals{path: path, Projects: map[string]map[string]string{}},
			fmt.Errorf("mcp approvals %s: %s (no project server counts as approved)", path, jsonProblem(data, err))
	}
	if a.Projects == nil {
		a.Projects = map[string]map[string]string{}
	}
	return a, nil
}

// Path is the file the approvals are kept in.
func (a *Approvals) Path() string { return a.path }

// Fingerprint binds an approval to the workspace, the server's name and
// its entry as written: a hash, so the file holds no header or token the
// entry may carry.
func Fingerprint(workspace string, s Server) string {
	h := sha256.Sum256([]byte(workspace + "\x00" + s.Name + "\x00" + s.Entry))
	return "sha256:" + hex.EncodeToString(h[:])
}

// Approve remembers s as approved in workspace.
func (a *Approvals) Approve(workspace string, s Server) {
	if a.Projects[workspace] == nil {
		a.Projects[workspace] = map[string]string{}
	}
	a.Projects[workspace][s.Name] = Fingerprint(workspace, s)
}

// Revoke forgets the approval of name in workspace; it reports whether
// there was one.
func (a *Approvals) Revoke(workspace, name string) bool {
	p := a.Projects[workspace]
	if _, ok := p[name]; !ok {
		return false
	}
	delete(p, name)
	if len(p) == 0 {
		delete(a.Projects, workspace)
	}
	return true
}

// Check reports whether s is approved in workspace as it is now, and, when
// not, whether an earlier version of it was (changed).
func (a *Approvals) Check(workspace string, s Server) (approved, changed bool) {
	fp, ok := a.Projects[workspace][s.Name]
	if !ok {
		return false, false
	}
	if fp == Fingerprint(workspace, s) {
		return true, false
	}
	return false, true
}

// Save writes the approvals, readable by the user alone (0600, in a 0700
// folder), replacing the file in one step.
func (a *Approvals) Save() error {
	if err := os.MkdirAll(filepath.Dir(a.path), 0o700); err != nil {
		return fmt.Errorf("mcp approvals: %w", err)
	}
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("mcp approvals: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(a.path), ".trusted-mcp-*")
	if err != nil {
		return fmt.Errorf("mcp approvals: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing to remove
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.Write(append(data, '\n'))
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), a.path)
	}
	if err != nil {
		return fmt.Errorf("mcp approvals: writing %s: %w", a.path, err)
	}
	return nil
}

// Workspace is the form of dir approvals are kept under: absolute, with
// symbolic links resolved, so every way of naming the folder is one.
func Workspace(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// Within reports whether path lies in one of roots (symbolic links
// resolved, as far as they exist): a file there the model can write with
// the file tools, so it cannot hold the user's approvals.
func Within(path string, roots ...string) bool {
	p := resolve(path)
	for _, r := range roots {
		rel, err := filepath.Rel(resolve(r), p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// resolve is path absolute with the symbolic links of its longest
// existing prefix resolved.
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(dir) == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// Verdict is whether a server may start, and why.
type Verdict string

// Verdicts.
const (
	// Own: a server of the user's own files, flags or editor; no approval
	// needed.
	Own Verdict = "trusted (your own configuration)"
	// Approved: a project server the user approved as it is now.
	Approved Verdict = "approved"
	// ApprovedByClaude: approved by ~/.claude/settings.json
	// (enableAllProjectMcpServers or enabledMcpjsonServers).
	ApprovedByClaude Verdict = "approved by ~/.claude/settings.json"
	// ApprovedByFlag: approved for this run by --trust-project-mcp.
	ApprovedByFlag Verdict = "approved for this run by --trust-project-mcp"
	// Unapproved: a project server never approved; it does not start.
	Unapproved Verdict = "not approved"
	// Changed: a project server whose entry changed since it was
	// approved; it does not start.
	Changed Verdict = "changed since approved"
	// Disabled: named by disabledMcpjsonServers; it does not start.
	Disabled Verdict = "disabled by disabledMcpjsonServers"
)

// Starts reports whether a server with verdict v starts.
func (v Verdict) Starts() bool {
	return v == Own || v == Approved || v == ApprovedByClaude || v == ApprovedByFlag
}

// Trust decides which project servers start. Servers of the user's own
// configuration (~/.config/atomic/mcp.json, the config file's mcp_config,
// --mcp-config, an ACP client's) always do; those of the workspace's
// .mcp.json only when the user approved them: with `atomic mcp trust`
// (remembered in Approvals against the entry's content), in
// ~/.claude/settings.json, or for one run with --trust-project-mcp.
type Trust struct {
	Workspace string
	Approvals *Approvals
	Claude    ClaudeSettings
	// FlagAll approves every project server for this run; FlagNames
	// those named.
	FlagAll   bool
	FlagNames []string
	// Unused names approval sources left out because the model can
	// write them (they lie in the workspace), for the warning.
	Unused []string
}

// Check is s's verdict.
func (t Trust) Check(s Server) Verdict {
	if !s.Project {
		return Own
	}
	if slices.Contains(t.Claude.Disabled, s.Name) {
		return Disabled
	}
	if t.FlagAll || slices.Contains(t.FlagNames, s.Name) {
		return ApprovedByFlag
	}
	var approved, changed bool
	if t.Approvals != nil {
		approved, changed = t.Approvals.Check(t.Workspace, s)
	}
	switch {
	case approved:
		return Approved
	case t.Claude.EnableAll || slices.Contains(t.Claude.Enabled, s.Name):
		return ApprovedByClaude
	case changed:
		return Changed
	}
	return Unapproved
}

// Filter splits servers into those that start and the project servers
// held back for want of approval (disabled ones are in neither), and
// returns the one warning that names the held ones and how to approve
// them ("" when none is held).
func (t Trust) Filter(servers []Server) (start []Server, held []Server, warning string) {
	var names []string
	source := ""
	for _, s := range servers {
		switch v := t.Check(s); {
		case v.Starts():
			start = append(start, s)
		case v == Unapproved || v == Changed:
			held = append(held, s)
			n := s.Name
			if v == Changed {
				n += " (changed since approved)"
			}
			names = append(names, n)
			source = s.Source
		}
	}
	if len(held) == 0 {
		return start, nil, ""
	}
	warning = fmt.Sprintf("mcp: not starting the project's MCP server%s %s from %s: not approved by you (a repository's .mcp.json runs programs as you); "+
		"review them with 'atomic mcp', approve with 'atomic mcp trust NAME', or for this run only with --trust-project-mcp",
		plural(len(held)), strings.Join(names, ", "), source)
	for _, u := range t.Unused {
		warning += "; " + u
	}
	if len(t.Claude.Ignored) > 0 {
		warning += fmt.Sprintf("; %s in the workspace does not count, as the model can write it: approve in ~/.claude/settings.json",
			strings.Join(t.Claude.Ignored, ", "))
	}
	return start, held, warning
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
