package agenttype

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// knownField reports whether key (lower-cased) is a front-matter field
// Atomic or Claude Code defines; the line-by-line reader starts a field
// only at such a key, so "user: …" inside a description stays in it.
func knownField(key string) bool {
	switch key {
	case "name", "description", "tools", "disallowedtools", "model", "effort", "disabled", "isolation", "runs_on", "skills":
		return true
	}
	return ignoredField(key) || quietField(key)
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

// splitFrontMatter cuts a Markdown file (\n line ends, no BOM) into the
// front matter between its --- lines and the body after them; has is
// false, and body all of data, when it opens with no --- line.
func splitFrontMatter(data []byte) (head, body []byte, has bool, err error) {
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

// FrontMatter reads a Markdown file's YAML front matter as agent files are
// read (line by line, starting fields at the keys known accepts, when it
// is not valid YAML) into text values by lower-cased key, a list as
// written ("[a, b]"), and returns the body after it. Custom slash commands
// use it. The error names the line where known ("line 3: …").
func FrontMatter(data []byte, known func(key string) bool) (map[string]string, string, error) {
	data = bytes.TrimPrefix(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\ufeff"))
	head, body, has, err := splitFrontMatter(data)
	if err != nil {
		return nil, "", fmt.Errorf("line 1: %w", err)
	}
	out := map[string]string{}
	if !has {
		return out, string(body), nil
	}
	fields, err := parseFrontMatter(head, known)
	if err != nil {
		msg := "bad front matter: " + strings.TrimPrefix(err.Error(), "yaml: ")
		if l := yamlErrLine(err); l > 0 {
			return nil, "", fmt.Errorf("line %d: %s", l, msg)
		}
		return nil, "", errors.New(msg)
	}
	for k, f := range fields {
		switch {
		case f.other:
			return nil, "", fmt.Errorf("line %d: %s is not text or a list", f.line, f.name)
		case f.isList:
			out[k] = "[" + strings.Join(f.list, ", ") + "]"
		default:
			out[k] = f.value
		}
	}
	return out, string(body), nil
}

// parseFrontMatter reads the front matter as YAML, or line by line when
// it is not valid YAML or YAML misreads prose as keys. The error is the
// YAML one, when neither way finds a field.
func parseFrontMatter(head []byte, known func(key string) bool) (map[string]field, error) {
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

func parseYAML(head []byte) (map[string]field, error) {
	fields := map[string]field{}
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
		f := field{name: k.Value, line: k.Line + 1}
		switch v.Kind {
		case yaml.ScalarNode:
			if v.Tag != "!!null" {
				f.value = v.Value
			}
		case yaml.SequenceNode:
			f.isList = true
			for _, it := range v.Content {
				if it.Kind != yaml.ScalarNode {
					f.other = true
					continue
				}
				f.list = append(f.list, it.Value)
			}
		default:
			f.other = true
		}
		fields[strings.ToLower(k.Value)] = f
	}
	return fields, nil
}

var fieldLine = lazy.Regexp{Expr: `^([A-Za-z][A-Za-z0-9_-]*):(?:\s+(.*))?$`}

// parseLines reads front matter the way its author meant it when it is
// not valid YAML: a known key at the start of a line begins a field, every
// other line continues the field before it.
func parseLines(head []byte, known func(key string) bool) map[string]field {
	fields := map[string]field{}
	var key string
	var cont []string
	var cur field
	flush := func() {
		if key == "" {
			return
		}
		cur.value, cur.list, cur.isList = looseValue(cur.value, cont)
		fields[key] = cur
	}
	for i, line := range strings.Split(string(head), "\n") {
		if m := fieldLine.Get().FindStringSubmatch(strings.TrimRight(line, " \t")); m != nil && known(strings.ToLower(m[1])) {
			flush()
			key, cont = strings.ToLower(m[1]), nil
			cur = field{name: m[1], line: i + 2, value: strings.TrimSpace(m[2])}
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

// entries are the items of a tools field: a list, or a comma-separated
// string.
func entries(f field) []string {
	if f.isList {
		return f.list
	}
	var out []string
	for _, s := range strings.Split(f.value, ",") {
		if s = unquote(strings.TrimSpace(s)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

var yamlLine = lazy.Regexp{Expr: `line (\d+)`}

// yamlErrLine is the file line (counting the opening ---) a YAML error
// names, or 0.
func yamlErrLine(err error) int {
	if m := yamlLine.Get().FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n + 1
	}
	return 0
}

// firstLine is the first line of text of a prompt, without Markdown
// heading marks: the description of an agent file that gives none.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#")); l != "" {
			if r := []rune(l); len(r) > 200 {
				l = string(r[:200]) + "…"
			}
			return l
		}
	}
	return ""
}

func sortedKeys(m map[string]field) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]].line < m[keys[j]].line })
	return keys
}
