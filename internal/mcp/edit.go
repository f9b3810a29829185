package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Scopes of `atomic mcp add`, as Claude Code names them and where it keeps
// them: local (this folder, in ~/.claude.json's projects entry), project
// (the folder's .mcp.json, shared through the repository) and user
// (~/.claude.json's top level, every folder).
const (
	ScopeLocal   = "local"
	ScopeProject = "project"
	ScopeUser    = "user"
)

// Place is where one scope's servers are kept: the mcpServers object of
// File's top level, or of File's projects[Project] when Project is set.
type Place struct {
	Scope   string
	File    string
	Project string
}

// ErrNoServer is returned by RemoveServer for a name the place lacks.
var ErrNoServer = errors.New("no such server")

// Entry is a server's configuration as .mcp.json writes it.
type Entry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Servers reads the names and raw entries of the servers kept at p (none
// when the file or the section does not exist).
func (p Place) Servers() (map[string]json.RawMessage, error) {
	doc, err := readDoc(p.File)
	if err != nil {
		return nil, err
	}
	return p.section(doc)
}

// AddServer adds server name with entry (raw JSON of one .mcp.json entry)
// at p, keeping everything else in the file as it was; a server of that
// name already there is an error.
func (p Place) AddServer(name string, entry json.RawMessage) error {
	if strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t/") {
		return fmt.Errorf("server name %q: use letters, digits, - and _", name)
	}
	if err := checkEntry(name, entry); err != nil {
		return err
	}
	return p.edit(func(servers map[string]json.RawMessage) error {
		if _, ok := servers[name]; ok {
			return fmt.Errorf("MCP server %q already exists in %s config (%s): remove it first", name, p.Scope, p.File)
		}
		servers[name] = entry
		return nil
	})
}

// RemoveServer removes server name from p; ErrNoServer when it is not there.
func (p Place) RemoveServer(name string) error {
	return p.edit(func(servers map[string]json.RawMessage) error {
		if _, ok := servers[name]; !ok {
			return ErrNoServer
		}
		delete(servers, name)
		return nil
	})
}

// checkEntry parses entry as a run would, so a server that could not
// start is refused before it is written.
func checkEntry(name string, entry json.RawMessage) error {
	if _, err := parseServer(name, entry, func(string) (string, bool) { return "", true }); err != nil {
		return fmt.Errorf("server %q: %w", name, err)
	}
	return nil
}

// edit applies change to the servers at p and writes the file back, by a
// rename so a reader never sees half of it; the file's mode is kept (0600
// for a new file: entries may hold tokens).
func (p Place) edit(change func(map[string]json.RawMessage) error) error {
	doc, err := readDoc(p.File)
	if err != nil {
		return err
	}
	servers, err := p.section(doc)
	if err != nil {
		return err
	}
	if err := change(servers); err != nil {
		return err
	}
	raw, err := json.Marshal(servers)
	if err != nil {
		return err
	}
	if p.Project == "" {
		doc["mcpServers"] = raw
	} else {
		projects := map[string]map[string]json.RawMessage{}
		if r, ok := doc["projects"]; ok {
			if err := json.Unmarshal(r, &projects); err != nil {
				return fmt.Errorf("%s: projects: %w", p.File, err)
			}
		}
		if projects[p.Project] == nil {
			projects[p.Project] = map[string]json.RawMessage{}
		}
		projects[p.Project]["mcpServers"] = raw
		if doc["projects"], err = json.Marshal(projects); err != nil {
			return err
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return writeReplacing(p.File, append(out, '\n'))
}

// section is the mcpServers object of doc at p (empty when absent).
func (p Place) section(doc map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	raw := doc["mcpServers"]
	where := "mcpServers"
	if p.Project != "" {
		raw, where = nil, "projects."+p.Project+".mcpServers"
		if r, ok := doc["projects"]; ok {
			var projects map[string]map[string]json.RawMessage
			if err := json.Unmarshal(r, &projects); err != nil {
				return nil, fmt.Errorf("%s: projects: %w", p.File, err)
			}
			raw = projects[p.Project]["mcpServers"]
		}
	}
	servers := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return servers, nil
	}
	if err := json.Unmarshal(raw, &servers); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", p.File, where, err)
	}
	return servers, nil
}

// readDoc reads a JSON object file; a missing file is an empty object.
func readDoc(path string) (map[string]json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return nil, err
	}
	doc := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(data)) == 0 {
		return doc, nil
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %s", path, jsonProblem(data, err))
	}
	return doc, nil
}

func writeReplacing(path string, data []byte) error {
	// A dotfiles manager's symlink stays a symlink: the file it names is
	// replaced, not the link.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
