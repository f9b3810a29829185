package claudesettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// file is what one settings file holds that Atomic reads.
type file struct {
	path  string
	scope Scope
	// data is the file's content as read.
	data []byte
	// allow, deny and ask are the permission rules as written.
	allow, deny, ask []string
	// defaultMode is "" when the file does not set it.
	defaultMode string
	// disableBypass is permissions.disableBypassPermissionsMode "disable".
	disableBypass bool
	dirs          []string
	env           map[string]string
	model         string
	// hooks is the "hooks" value as written (nil: none).
	hooks json.RawMessage
	// unsupported are the keys Atomic ignores (dotted below permissions).
	unsupported []string
	// problems are values Atomic skips, with why.
	problems []string
}

// quietKey reports a top-level key Atomic reads elsewhere or that
// describes the file: no warning names it. The MCP keys are read by the
// MCP trust of the project's .mcp.json. (Switches, not maps: a
// package-level map is built at init in every process.)
func quietKey(k string) bool {
	switch k {
	case "$schema", "permissions", "env", "model", "hooks",
		"enableAllProjectMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers":
		return true
	}
	return false
}

// permissionKey reports a key of "permissions" Atomic applies.
func permissionKey(k string) bool {
	switch k {
	case "allow", "deny", "ask", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode":
		return true
	}
	return false
}

// readFile reads one settings file; ok is false when it does not exist.
// A file that exists but cannot be read, is not JSON, or holds rules of
// the wrong kind is an error naming the file (and the line and column of
// a syntax error): losing a deny rule silently would be unsafe.
func readFile(path string, scope Scope) (f file, ok bool, err error) {
	var data []byte
	if scope == Flag && strings.HasPrefix(strings.TrimSpace(path), "{") { // --settings JSON
		data, path = []byte(path), "--settings"
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return f, false, nil
		}
		return f, false, fmt.Errorf("Claude Code settings %s: %w", path, err)
	}
	f = file{path: path, scope: scope, data: data}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, true, nil
	}
	fail := func(format string, args ...any) (file, bool, error) {
		return file{}, false, fmt.Errorf("Claude Code settings %s: %s", path, fmt.Sprintf(format, args...))
	}
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&top); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fail("expected a JSON object like {\"permissions\": {\"deny\": [\"Read(./.env)\"]}}, found %s", te.Value)
		}
		return fail("%s", syntaxError(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := position(data, dec.InputOffset())
		return fail("line %d, column %d: unexpected content after the JSON object", line, col)
	}
	for _, k := range sortedKeys(top) {
		if !quietKey(k) {
			f.unsupported = append(f.unsupported, k)
		}
	}
	if raw, set := top["permissions"]; set && !isNull(raw) {
		if err := f.readPermissions(raw); err != nil {
			return fail("%v", err)
		}
	}
	if raw, set := top["model"]; set && !isNull(raw) {
		if err := json.Unmarshal(raw, &f.model); err != nil {
			f.problems = append(f.problems, `model: expected a string like "claude-sonnet-4-5"; ignored`)
		}
		f.model = strings.TrimSpace(f.model)
	}
	if raw, set := top["hooks"]; set && !isNull(raw) {
		f.hooks = raw
	}
	if raw, set := top["env"]; set && !isNull(raw) {
		if err := f.readEnv(raw); err != nil {
			return fail("%v", err)
		}
	}
	return f, true, nil
}

func (f *file) readPermissions(raw json.RawMessage) error {
	var perms map[string]json.RawMessage
	if err := json.Unmarshal(raw, &perms); err != nil {
		return fmt.Errorf(`permissions: expected an object like {"deny": ["Read(./.env)"]}`)
	}
	for _, k := range sortedKeys(perms) {
		if !permissionKey(k) {
			f.unsupported = append(f.unsupported, "permissions."+k)
		}
	}
	lists := []struct {
		key string
		dst *[]string
	}{{"allow", &f.allow}, {"deny", &f.deny}, {"ask", &f.ask}, {"additionalDirectories", &f.dirs}}
	for _, l := range lists {
		v, set := perms[l.key]
		if !set || isNull(v) {
			continue
		}
		if err := json.Unmarshal(v, l.dst); err != nil {
			return fmt.Errorf(`permissions.%s: expected a list of strings like ["Bash(npm run test:*)"]`, l.key)
		}
	}
	if v, set := perms["defaultMode"]; set && !isNull(v) {
		if err := json.Unmarshal(v, &f.defaultMode); err != nil {
			return fmt.Errorf(`permissions.defaultMode: expected a string: default, acceptEdits, plan or bypassPermissions`)
		}
	}
	if v, set := perms["disableBypassPermissionsMode"]; set && !isNull(v) {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf(`permissions.disableBypassPermissionsMode: expected the string "disable"`)
		}
		f.disableBypass = s == "disable"
	}
	return nil
}

func (f *file) readEnv(raw json.RawMessage) error {
	var env map[string]any
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf(`env: expected an object of variables like {"NODE_ENV": "test"}`)
	}
	f.env = map[string]string{}
	for _, k := range sortedKeys(env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			f.problems = append(f.problems, fmt.Sprintf("env: %q is not a variable name; skipped", k))
			continue
		}
		switch v := env[k].(type) {
		case string:
			if strings.ContainsRune(v, 0) {
				f.problems = append(f.problems, fmt.Sprintf("env.%s: the value holds a NUL byte; skipped", k))
				continue
			}
			f.env[k] = v
		case float64, bool:
			f.env[k] = fmt.Sprint(v)
		default:
			f.problems = append(f.problems, fmt.Sprintf("env.%s: expected a string; skipped", k))
		}
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// syntaxError places a JSON syntax error by line and column.
func syntaxError(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := position(data, se.Offset)
		return fmt.Sprintf("line %d, column %d: %s", line, col, strings.TrimPrefix(err.Error(), "json: "))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		line, col := position(data, int64(len(data)))
		return fmt.Sprintf("line %d, column %d: the JSON ends early: a closing } or ] or \" is missing", line, col)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// position is the 1-based line and column of the byte before offset off
// (where the decoder stopped).
func position(data []byte, off int64) (line, col int) {
	end := min(max(int(off), 0), len(data))
	before := data[:end]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = end - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}
