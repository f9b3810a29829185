package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/editdist"
	"github.com/atomic-agent/atomic/internal/provider"
)

// objectExample shows in errors what a config file looks like.
const objectExample = `{"provider": "anthropic"}`

// LoadFile reads a config file. A missing file is no error when optional;
// an empty one is no settings. Anything else that is not a JSON object of
// known fields with values of the right kind and limits of at least 1 is an
// error naming the file, the field and what was expected, in words. An
// unknown field is an error rather than a warning: a misspelt
// "disallowed_tools" silently ignored would allow what the user meant to
// forbid.
func LoadFile(path string, optional bool) (File, error) {
	var f File
	data, err := os.ReadFile(path)
	if err != nil {
		if optional && errors.Is(err, fs.ErrNotExist) {
			return f, nil
		}
		return f, fmt.Errorf("config file: %w", err)
	}
	return ParseFile(path, data)
}

// ParseFile checks and decodes a config file's content as LoadFile does;
// path names it in errors.
func ParseFile(path string, data []byte) (File, error) {
	var f File
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	fail := func(format string, args ...any) (File, error) {
		return File{}, fmt.Errorf("config %s: %s", path, fmt.Sprintf(format, args...))
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return fail("%s", syntaxError(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("unexpected content after the JSON object at line %d", lineAt(data, dec.InputOffset()))
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return fail("expected a JSON object like %s, found %s", objectExample, kindOf(raw))
	}
	if msg := unknownFields(obj, reflect.TypeFor[File](), ""); msg != "" {
		return fail("%s", msg)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			want := expected(te.Field)
			if want == "a number" && strings.HasPrefix(te.Value, "number ") && te.Type.Kind() == reflect.Int {
				want = "a whole number" // a fraction, or too large
			}
			return fail("%s: expected %s, found %s", te.Field, want, found(te.Value))
		}
		return fail("%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if err := checkLimits(obj, f); err != nil {
		return File{}, fmt.Errorf("config %w (in %s)", err, path)
	}
	return f, nil
}

// checkLimits rejects limits given below 1 (a limit left out takes its
// default).
func checkLimits(obj map[string]any, f File) error {
	atLeastOne := func(name string, v int) error {
		if v < 1 {
			return fmt.Errorf("%s: must be at least 1, got %d", name, v)
		}
		return nil
	}
	for _, l := range []struct {
		name string
		v    int
	}{{"max_turns", f.MaxTurns}, {"max_subagents", f.MaxSubagents}, {"max_teammates", f.MaxTeammates}, {"max_depth", f.MaxDepth}} {
		if _, set := obj[l.name]; set {
			if err := atLeastOne(l.name, l.v); err != nil {
				return err
			}
		}
	}
	if _, set := obj["context_window"]; set && f.ContextWindow < 1 {
		return fmt.Errorf("context_window: must be at least 1 token, got %d", f.ContextWindow)
	}
	for model, w := range f.ContextWindows {
		if w < 1 {
			return fmt.Errorf("context_windows.%s: must be at least 1 token, got %d", model, w)
		}
	}
	if _, set := obj["compact_threshold"]; set && (f.CompactThreshold <= 0 || f.CompactThreshold > 1) {
		return fmt.Errorf("compact_threshold: must be above 0 and at most 1 (a share of the window), got %v", f.CompactThreshold)
	}
	if _, err := provider.ParseEffort(f.Effort); err != nil {
		return fmt.Errorf("effort: %w", err)
	}
	if _, set := obj["max_remote_tasks"]; set && f.MaxRemoteTasks < 0 {
		return fmt.Errorf("max_remote_tasks: must be 0 (no cap) or more, got %d", f.MaxRemoteTasks)
	}
	if _, set := obj["mcp_startup_timeout"]; set && f.MCPStartupSeconds <= 0 {
		return fmt.Errorf("mcp_startup_timeout: must be more than 0 seconds, got %v", f.MCPStartupSeconds)
	}
	if _, set := obj["mcp_tool_timeout"]; set && f.MCPToolSeconds <= 0 {
		return fmt.Errorf("mcp_tool_timeout: must be more than 0 seconds, got %v", f.MCPToolSeconds)
	}
	r, _ := obj["retry"].(map[string]any)
	if r == nil || f.Retry == nil {
		return nil
	}
	for _, l := range []struct {
		name string
		v    int
	}{{"max_attempts", f.Retry.MaxAttempts}, {"base_delay_ms", f.Retry.BaseDelayMS}, {"max_delay_ms", f.Retry.MaxDelayMS}} {
		if _, set := r[l.name]; set {
			if err := atLeastOne("retry."+l.name, l.v); err != nil {
				return err
			}
		}
	}
	if _, set := r["max_total_seconds"]; set && f.Retry.MaxTotalS <= 0 {
		return fmt.Errorf("retry.max_total_seconds: must be more than 0, got %v", f.Retry.MaxTotalS)
	}
	if f.Retry.BaseDelayMS > 0 && f.Retry.MaxDelayMS > 0 && f.Retry.MaxDelayMS < f.Retry.BaseDelayMS {
		return fmt.Errorf("retry.max_delay_ms: must be at least base_delay_ms (%d), got %d", f.Retry.BaseDelayMS, f.Retry.MaxDelayMS)
	}
	return nil
}

// fieldNames are the JSON names of a struct's fields, in order.
func fieldNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// fieldType is the type of the field of struct t named name in JSON.
func fieldType(t reflect.Type, name string) (reflect.Type, bool) {
	for i := range t.NumField() {
		n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if n == name {
			return t.Field(i).Type, true
		}
	}
	return nil, false
}

// unknownFields names the first field of obj (and of its nested objects)
// that t does not have, with the known name it most likely meant.
func unknownFields(obj map[string]any, t reflect.Type, prefix string) string {
	known := fieldNames(t)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		ft, ok := fieldType(t, k)
		if !ok {
			if s := closest(k, known); s != "" {
				return fmt.Sprintf("unknown field %q (did you mean %q?)", prefix+k, prefix+s)
			}
			return fmt.Sprintf("unknown field %q; known fields: %s", prefix+k, strings.Join(known, ", "))
		}
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sub, isObj := obj[k].(map[string]any); isObj && ft.Kind() == reflect.Struct {
			if msg := unknownFields(sub, ft, prefix+k+"."); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// closest is the known name a typo most likely meant: within a small edit
// distance, or containing it; "" when none is close.
func closest(name string, known []string) string {
	best, bestD := "", 0
	for _, k := range known {
		d := editdist.Levenshtein(strings.ToLower(name), k)
		if d <= max(2, len(k)/4) && (best == "" || d < bestD) {
			best, bestD = k, d
		}
	}
	if best != "" {
		return best
	}
	for _, k := range known {
		if len(name) >= 4 && strings.Contains(k, strings.ToLower(name)) {
			return k
		}
	}
	return ""
}

// expected says in words what the field at path (dotted JSON names) holds.
func expected(path string) string {
	t := reflect.TypeFor[File]()
	for _, name := range strings.Split(path, ".") {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			break
		}
		ft, ok := fieldType(t, name)
		if !ok {
			return "another kind of value"
		}
		t = ft
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return `a list of strings like ["read", "grep"]`
	case reflect.Struct:
		if names := fieldNames(t); len(names) > 0 {
			return fmt.Sprintf(`an object like {"%s": 5}`, names[0])
		}
		return "an object"
	}
	return "another kind of value"
}

// found says in words what a JSON value of the decoder's kind is: the
// value names "string", "number", "number 2.5", "array", "object", "bool".
func found(value string) string {
	switch {
	case value == "string":
		return "a string"
	case value == "number":
		return "a number"
	case strings.HasPrefix(value, "number "):
		return strings.TrimPrefix(value, "number ")
	case value == "array":
		return "an array"
	case value == "object":
		return "an object"
	case value == "bool":
		return "true or false"
	}
	return value
}

// kindOf names the kind of a decoded JSON value.
func kindOf(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "true or false"
	case nil:
		return "null"
	}
	return "something else"
}

// syntaxError places a JSON syntax error by line.
func syntaxError(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("line %d: %s", lineAt(data, se.Offset), strings.TrimPrefix(err.Error(), "json: "))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "the JSON ends early: a closing } or ] or \" is missing"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func lineAt(data []byte, off int64) int {
	return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n"))
}
