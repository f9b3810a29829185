// Package mcp connects Atomic to Model Context Protocol servers with the
// official Go SDK: it reads their configuration the way Claude Code users
// write it (.mcp.json), starts them in the background, and offers their
// tools to agents as mcp__<server>__<tool>.
package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// Transports.
const (
	Stdio = "stdio"
	HTTP  = "http" // streamable HTTP
	SSE   = "sse"
)

// Server is one configured MCP server.
type Server struct {
	Name string
	// Type is Stdio, HTTP or SSE.
	Type    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	// Source is the file the server came from.
	Source string
	// Project marks a server from the workspace's own .mcp.json: the
	// repository (and so the model, which can edit it) wrote it, so it
	// starts only once the user approved it (see Trust).
	Project bool
	// Entry is the server's entry as written, normalised (keys sorted, no
	// spacing, variables not expanded): what an approval is bound to.
	Entry string
}

// Source is one configuration file to read.
type Source struct {
	Path string
	// Optional sources may be absent (the user file, the project's
	// .mcp.json); a missing required one (--mcp-config) is an error.
	Optional bool
	// Project marks the workspace's .mcp.json, whose servers need the
	// user's approval; the user's own files and flags do not.
	Project bool
	// ClaudeJSON marks Claude Code's ~/.claude.json, where "claude mcp
	// add" keeps servers: its top-level mcpServers (user scope), or, with
	// ClaudeProject set, projects[ClaudeProject].mcpServers (local scope).
	// Either may be absent.
	ClaudeJSON    bool
	ClaudeProject string
}

// Load reads sources in order; a later server of the same name replaces an
// earlier one. Each problem is one error "path: why"; a bad server is
// skipped and the rest of its file still used.
func Load(sources []Source, getenv func(string) (string, bool)) ([]Server, []error) {
	var order []string
	byName := map[string]Server{}
	var errs []error
	var claude claudeJSON
	for _, src := range sources {
		data, err := readSource(src.Path)
		if err != nil {
			if src.Optional && errors.Is(err, os.ErrNotExist) {
				continue
			}
			errs = append(errs, err)
			continue
		}
		name := src.Path
		if isInlineJSON(src.Path) {
			name = "--mcp-config"
		}
		if src.ClaudeJSON {
			if data, name, err = claude.section(src.Path, data, src.ClaudeProject); err != nil {
				errs = append(errs, err)
				continue
			}
			if data == nil {
				continue
			}
		}
		servers, perrs := Parse(name, data, getenv)
		errs = append(errs, perrs...)
		for _, s := range servers {
			s.Project = src.Project
			if _, seen := byName[s.Name]; !seen {
				order = append(order, s.Name)
			}
			byName[s.Name] = s
		}
	}
	out := make([]Server, 0, len(order))
	for _, n := range order {
		out = append(out, byName[n])
	}
	return out, errs
}

// isInlineJSON reports whether a --mcp-config value is JSON itself, as
// Claude Code accepts, rather than a file name.
func isInlineJSON(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "{") }

func readSource(path string) ([]byte, error) {
	if isInlineJSON(path) {
		return []byte(path), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// rawServer is a server entry as written.
type rawServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// Parse reads one file's servers: {"mcpServers": {name: server}}. path
// names the file in errors.
func Parse(path string, data []byte, getenv func(string) (string, bool)) ([]Server, []error) {
	var file struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, []error{fmt.Errorf("%s: %s", path, jsonProblem(data, err))}
	}
	if file.MCPServers == nil {
		return nil, []error{fmt.Errorf("%s: no \"mcpServers\" object", path)}
	}
	var out []Server
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(file.MCPServers)) {
		s, err := parseServer(name, file.MCPServers[name], getenv)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: mcpServers.%s: %w", path, name, err))
			continue
		}
		s.Source = path
		out = append(out, s)
	}
	return out, errs
}

func parseServer(name string, raw json.RawMessage, getenv func(string) (string, bool)) (Server, error) {
	if name == "" {
		return Server{}, errors.New("empty server name")
	}
	var r rawServer
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&r); err != nil {
		return Server{}, fmt.Errorf("bad server entry: %s", jsonProblem(raw, err))
	}
	s := Server{Name: name, Type: r.Type, Entry: normalize(raw)}
	switch r.Type {
	case "", Stdio:
		s.Type = Stdio
		if r.Command == "" {
			if r.URL != "" {
				return Server{}, errors.New(`"url" given without "type" (want "http" or "sse")`)
			}
			return Server{}, errors.New(`missing "command"`)
		}
	case HTTP, "streamable-http", "streamableHttp":
		s.Type = HTTP
	case SSE:
	default:
		return Server{}, fmt.Errorf("unknown type %q (want stdio, http or sse)", r.Type)
	}
	if s.Type != Stdio && r.URL == "" {
		return Server{}, errors.New(`missing "url"`)
	}
	ex := expander{getenv: getenv}
	s.Command = ex.expand("command", r.Command)
	for i, a := range r.Args {
		s.Args = append(s.Args, ex.expand(fmt.Sprintf("args[%d]", i), a))
	}
	s.Env = ex.expandMap("env", r.Env)
	s.URL = ex.expand("url", r.URL)
	s.Headers = ex.expandMap("headers", r.Headers)
	if ex.err != nil {
		return Server{}, ex.err
	}
	return s, nil
}

// normalize is raw with its keys sorted and no spacing; raw as it is when
// it does not decode (parseServer has rejected it then).
func normalize(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// jsonProblem says where a JSON error is, by line and column when the
// decoder gives an offset.
func jsonProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return fmt.Sprintf("line %d column %d: %v", line, col, err)
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		field := typ.Field
		if field == "" {
			field = "value"
		}
		return fmt.Sprintf("line %d column %d: %s must be %s, not %s", line, col, field, typ.Type, typ.Value)
	}
	return err.Error()
}

func position(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// expander does ${VAR} and ${VAR:-default} expansion, keeping the first
// unset variable as its error.
type expander struct {
	getenv func(string) (string, bool)
	err    error
}

func (e *expander) expandMap(field string, m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out[k] = e.expand(field+"."+k, m[k])
	}
	return out
}

func (e *expander) expand(field, s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		expr := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(expr, ":-")
		v, ok := e.getenv(name)
		switch {
		case ok:
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		case e.err == nil:
			e.err = fmt.Errorf("%s: environment variable %s is not set (and has no ${%s:-default})", field, name, name)
		}
		s = s[i+end+1:]
	}
}
