// Package frontmatter reads the YAML front matter of the Markdown files a
// run loads at start (agent files, slash commands, rules) as Claude Code
// users write it: valid YAML, or, when it is not (a description holding
// "Context: …" and "user: …" lines), line by line from the keys the
// caller knows.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// Field is one front-matter entry: a scalar, a list of scalars, or
// something else (a mapping), which only fields the caller ignores may be.
type Field struct {
	Name   string // as written
	Line   int    // in the file, counting the opening ---
	Value  string
	List   []string
	IsList bool
	Other  bool
	// Decoded is a mapping's value as YAML decodes it (an agent file's
	// hooks:); nil for scalars and lists, and in front matter read line
	// by line.
	Decoded any
}

// Items are the items of a list field, or of a comma-separated string
// (tools: read, grep).
func (f Field) Items() []string {
	if f.IsList {
		return f.List
	}
	var out []string
	for _, s := range strings.Split(f.Value, ",") {
		if s = unquote(strings.TrimSpace(s)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// proseKey reports a key YAML finds in descriptions that is really prose
// (Claude Code's examples): seeing one, the line-by-line reader is used.
func proseKey(k string) bool {
	switch k {
	case "examples", "example", "context", "user", "assistant", "commentary":
		return true
	}
	return false
}

// Split cuts a Markdown file into the front matter between its --- lines
// and the body after them, with \r\n read as \n and a BOM dropped; has is
// false, and body all of data, when it opens with no --- line.
func Split(data []byte) (head, body []byte, has bool, err error) {
	data = bytes.TrimPrefix(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\ufeff"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return nil, data, false, nil
	}
	rest := data[4:]
	if bytes.HasPrefix(rest, []byte("---")) { // empty front matter
		body = rest[3:]
	} else {
		end := bytes.Index(rest, []byte("\n---"))
		if end < 0 {
			return nil, nil, true, errors.New("front matter is not closed by a --- line")
		}
		head, body = rest[:end+1], rest[end+4:]
	}
	if i := bytes.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:] // the rest of the closing --- line
	} else {
		body = nil
	}
	return head, body, true, nil
}

// Text reads a Markdown file's front matter (as Fields does) into text
// values by lower-cased key, a list as written ("[a, b]"), and returns the
// body after it. Slash commands and rules use it. The error names the
// line where known ("line 3: …").
func Text(data []byte, known func(key string) bool) (map[string]string, string, error) {
	head, body, has, err := Split(data)
	if err != nil {
		return nil, "", fmt.Errorf("line 1: %w", err)
	}
	out := map[string]string{}
	if !has {
		return out, string(body), nil
	}
	fields, err := Fields(head, known)
	if err != nil {
		msg := "bad front matter: " + strings.TrimPrefix(err.Error(), "yaml: ")
		if l := ErrLine(err); l > 0 {
			return nil, "", fmt.Errorf("line %d: %s", l, msg)
		}
		return nil, "", errors.New(msg)
	}
	for k, f := range fields {
		switch {
		case f.Other:
			return nil, "", fmt.Errorf("line %d: %s is not text or a list", f.Line, f.Name)
		case f.IsList:
			out[k] = "[" + strings.Join(f.List, ", ") + "]"
		default:
			out[k] = f.Value
		}
	}
	return out, string(body), nil
}

// Fields reads front matter (Split's head) by lower-cased key: as YAML,
// or line by line, starting a field only at a key known accepts, when it
// is not valid YAML or YAML misreads prose as keys. The error is the YAML
// one, when neither way finds a field.
func Fields(head []byte, known func(key string) bool) (map[string]Field, error) {
	fields, err := parseYAML(head)
	if err == nil {
		prose := false
		for k := range fields {
			if proseKey(k) || strings.ContainsAny(k, " <") {
				prose = true
			}
		}
		if !prose {
			return fields, nil
		}
	}
	loose := parseLines(head, known)
	if len(loose) == 0 {
		if err == nil {
			return fields, nil
		}
		return nil, err
	}
	return loose, nil
}

func parseYAML(head []byte) (map[string]Field, error) {
	fields := map[string]Field{}
	var doc yaml.Node
	if err := yaml.Unmarshal(head, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return fields, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, errors.New("front matter must be key: value lines")
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		f := Field{Name: k.Value, Line: k.Line + 1}
		switch v.Kind {
		case yaml.ScalarNode:
			if v.Tag != "!!null" {
				f.Value = v.Value
			}
		case yaml.SequenceNode:
			f.IsList = true
			for _, it := range v.Content {
				if it.Kind != yaml.ScalarNode {
					f.Other = true
					continue
				}
				f.List = append(f.List, it.Value)
			}
		case yaml.MappingNode:
			f.Other = true
			var val map[string]any
			if v.Decode(&val) == nil {
				f.Decoded = val
			}
		default:
			f.Other = true
		}
		fields[strings.ToLower(k.Value)] = f
	}
	return fields, nil
}

var fieldLine = lazy.Regexp{Expr: `^([A-Za-z][A-Za-z0-9_-]*):(?:\s+(.*))?$`}

// parseLines reads front matter the way its author meant it when it is
// not valid YAML: a known key at the start of a line begins a field, every
// other line continues the field before it.
func parseLines(head []byte, known func(key string) bool) map[string]Field {
	fields := map[string]Field{}
	var key string
	var cont []string
	var cur Field
	flush := func() {
		if key == "" {
			return
		}
		cur.Value, cur.List, cur.IsList = looseValue(cur.Value, cont)
		fields[key] = cur
	}
	for i, line := range strings.Split(string(head), "\n") {
		if m := fieldLine.Get().FindStringSubmatch(strings.TrimRight(line, " \t")); m != nil && known(strings.ToLower(m[1])) {
			flush()
			key, cont = strings.ToLower(m[1]), nil
			cur = Field{Name: m[1], Line: i + 2, Value: strings.TrimSpace(m[2])}
			continue
		}
		if key != "" {
			cont = append(cont, line)
		}
	}
	flush()
	return fields
}

// looseValue turns a field's first-line value and continuation lines
// into a scalar or a list.
func looseValue(first string, cont []string) (string, []string, bool) {
	for len(cont) > 0 && strings.TrimSpace(cont[len(cont)-1]) == "" {
		cont = cont[:len(cont)-1]
	}
	if first == "" && len(cont) > 0 {
		var list []string
		for _, l := range cont {
			t := strings.TrimSpace(l)
			if t == "" {
				continue
			}
			item, ok := strings.CutPrefix(t, "- ")
			if !ok && t != "-" {
				list = nil
				break
			}
			list = append(list, unquote(strings.TrimSpace(item)))
		}
		if list != nil {
			return "", list, true
		}
	}
	if strings.HasPrefix(first, "[") && strings.HasSuffix(first, "]") && len(cont) == 0 {
		var list []string
		for _, it := range strings.Split(first[1:len(first)-1], ",") {
			if it = unquote(strings.TrimSpace(it)); it != "" {
				list = append(list, it)
			}
		}
		return "", list, true
	}
	block := first == "|" || first == ">" || first == "|-" || first == ">-" || first == "|+" || first == ">+"
	if block {
		first = ""
	}
	lines := append([]string{first}, cont...)
	if block {
		lines = dedent(cont)
	}
	v := strings.TrimSpace(strings.Join(lines, "\n"))
	if len(cont) == 0 {
		v = unquote(v)
	}
	return v, nil, false
}

func dedent(lines []string) []string {
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			l = l[indent:]
		}
		out[i] = l
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"') {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
		return s[1 : len(s)-1]
	}
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return s
}

var yamlLine = lazy.Regexp{Expr: `line (\d+)`}

// ErrLine is the file line (counting the opening ---) a YAML error from
// Fields names, or 0.
func ErrLine(err error) int {
	if m := yamlLine.Get().FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n + 1
	}
	return 0
}
