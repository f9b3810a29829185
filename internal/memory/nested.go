package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/atomic-agent/atomic/internal/tools"
)

// Nested is the kind of a memory file below the working directory, loaded
// when an agent first reads a file in its folder.
const Nested Kind = "instructions for the files of this folder"

// WithNested wraps the read tool so that, as Claude Code does, the first
// time an agent reads a file below root its AGENTS.md (or
// AGENTS.override.md), CLAUDE.md and CLAUDE.local.md of each folder from
// root down to the file (root's own are in every system prompt already)
// are added to that read's result: once per agent and folder. home
// resolves their @~/ imports.
func WithNested(read tools.Tool, root, home string) tools.Tool {
	return &nestedRead{Tool: read, root: filepath.Clean(root), home: home, given: map[string]bool{}}
}

type nestedRead struct {
	tools.Tool
	tools.SchemaCache
	root, home string

	mu    sync.Mutex
	given map[string]bool // agent id + "\x00" + folder
}

// Subject is the read tool's.
func (n *nestedRead) Subject(in json.RawMessage) string {
	if s, ok := n.Tool.(tools.Subjecter); ok {
		return s.Subject(in)
	}
	return ""
}

func (n *nestedRead) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	res, err := n.Tool.Run(ctx, call)
	if err != nil || res.IsError {
		return res, err
	}
	var in struct {
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(call.Input, &in) != nil || in.FilePath == "" {
		return res, nil
	}
	if block := n.instructions(call.AgentID, in.FilePath); block != "" {
		res.Content += block
	}
	return res, nil
}

// instructions are the memory files of the folders between root and path
// not yet given to agent, as a block to append ("" when none).
func (n *nestedRead) instructions(agent, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(n.root, path)
	}
	rel, err := filepath.Rel(n.root, filepath.Dir(filepath.Clean(path)))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	var dirs []string
	d := n.root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, part)
		dirs = append(dirs, d)
	}
	n.mu.Lock()
	var fresh []string
	for _, d := range dirs {
		if key := agent + "\x00" + d; !n.given[key] {
			n.given[key] = true
			fresh = append(fresh, d)
		}
	}
	n.mu.Unlock()
	l := &loader{home: n.home, seen: map[string]bool{}}
	for _, d := range fresh {
		l.top(agentsFile(d), Nested)
		l.top(filepath.Join(d, "CLAUDE.md"), Nested)
		l.top(filepath.Join(d, "CLAUDE.local.md"), Nested)
	}
	if len(l.mem.Files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n<project-memory>\nThis folder has instructions; follow them for its files (a nearer folder's win):")
	for _, f := range l.mem.Files {
		what := string(f.Kind)
		if f.ImportedBy != "" {
			what = "imported by " + f.ImportedBy
		}
		fmt.Fprintf(&b, "\n\nContents of %s (%s):\n\n%s", f.Path, what, strings.TrimSpace(f.Content))
	}
	b.WriteString("\n</project-memory>")
	return b.String()
}
