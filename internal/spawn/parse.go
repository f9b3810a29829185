package spawn

import (
	"cmp"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomic-agent/atomic/internal/frontmatter"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/provider"
)

// knownField reports whether key (lower-cased) is a front-matter field
// Atomic or Claude Code defines; the line-by-line reader starts a field
// only at such a key, so "user: …" inside a description stays in it.
func knownField(key string) bool {
	switch key {
	case "name", "description", "tools", "disallowedtools", "model", "effort", "disabled", "isolation", "runs_on", "hooks", "skills":
		return true
	}
	return ignoredField(key) || quietField(key)
}

// ParseType reads one agent file, in Atomic's format or Claude Code's. It
// is liberal: a file without front matter or without a name takes its
// name from the file name and its description from its first line; front
// matter that is not valid YAML, as Claude Code files often are (a
// description with "Context: …" and "user: …" in it), is read line by
// line; literal \n in a description are line breaks; Claude Code's tool
// names and fields are mapped, and what Atomic lacks is named in the
// returned *AgentFileWarning (nil when nothing was ignored). Errors are *AgentFileError
// with the line where known, for files that cannot be read as an agent.
func ParseType(path string, data []byte, knownTools []string) (Type, *AgentFileWarning, error) {
	fail := func(line int, format string, args ...any) (Type, *AgentFileWarning, error) {
		return Type{}, nil, &AgentFileError{Path: path, Line: line, Err: fmt.Errorf(format, args...)}
	}
	warn := &AgentFileWarning{Path: path}
	ignore := func(line int, what string) {
		if len(warn.Ignored) == 0 {
			warn.Line = line
		}
		warn.Ignored = append(warn.Ignored, what)
	}
	var fields map[string]frontmatter.Field
	head, body, has, err := frontmatter.Split(data)
	if err != nil {
		return fail(1, "%v", err)
	}
	if has {
		if fields, err = frontmatter.Fields(head, knownField); err != nil {
			return fail(frontmatter.ErrLine(err), "bad front matter: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
	} else {
		fields = map[string]frontmatter.Field{}
		ignore(1, "no YAML front matter (name taken from the file name)")
	}
	get := func(key string) (frontmatter.Field, bool) {
		f, ok := fields[key]
		return f, ok
	}
	t := Type{Source: path, Prompt: strings.TrimSpace(string(body))}
	name, hasName := get("name")
	t.Name = strings.TrimSpace(name.Value)
	if !hasName || t.Name == "" {
		t.Name = strings.TrimSuffix(filepath.Base(path), ".md")
		if len(fields) > 0 {
			ignore(1, "no name (taken from the file name)")
		}
	}
	if strings.ContainsAny(t.Name, " \t/\\") {
		clean := strings.Join(strings.FieldsFunc(t.Name, func(r rune) bool { return strings.ContainsRune(" \t/\\", r) }), "-")
		ignore(name.Line, fmt.Sprintf("name %q has spaces or slashes (used as %q)", t.Name, clean))
		t.Name = clean
	}
	if t.Name == "" {
		return fail(name.Line, "no usable name")
	}
	desc, _ := get("description")
	t.Description = strings.TrimSpace(strings.ReplaceAll(desc.Value, `\n`, "\n"))
	if t.Description == "" {
		t.Description = firstLine(t.Prompt)
		if t.Description == "" {
			t.Description = "Custom agent " + t.Name + " (" + filepath.Base(path) + ")"
		}
		if len(fields) > 0 {
			ignore(max(name.Line, 1), "no description (taken from the prompt)")
		}
	}
	if m, ok := get("model"); ok {
		t.Model = claudeModel(m.Value)
	}
	if f, ok := get("effort"); ok {
		e, err := provider.ParseEffort(f.Value)
		if err != nil {
			ignore(f.Line, fmt.Sprintf("effort %q (one of low, medium, high, max; the lead's level is inherited)", f.Value))
		}
		t.Effort = e
	}
	if b, ok := get("backend"); ok {
		t.Backend = strings.ToLower(strings.TrimSpace(b.Value))
	}
	if f, ok := get("isolation"); ok {
		switch v := strings.ToLower(strings.TrimSpace(f.Value)); v {
		case Worktree:
			t.Isolation = Worktree
		case "":
		default:
			ignore(f.Line, fmt.Sprintf("isolation %q (only worktree is supported)", f.Value))
		}
	}
	if f, ok := get("runs_on"); ok {
		switch v := strings.ToLower(strings.TrimSpace(f.Value)); v {
		case Workers:
			t.RunsOn = Workers
		case "", "local":
		default:
			ignore(f.Line, fmt.Sprintf("runs_on %q (only workers is supported)", f.Value))
		}
	}
	if f, ok := get("hooks"); ok {
		parseHooks(&t, f, ignore)
	}
	if f, ok := get("skills"); ok {
		t.Skills = f.Items()
	}
	if d, ok := get("disabled"); ok && strings.EqualFold(strings.TrimSpace(d.Value), "true") {
		t.Disabled = true
	}
	var unsupported, scoped []string
	toolsLine := 0
	if f, ok := get("tools"); ok {
		toolsLine = f.Line
		if entries := f.Items(); !(len(entries) == 1 && entries[0] == "*") {
			t.Tools = []string{}
			for _, e := range entries {
				n, scope, ok := mapTool(e, knownTools)
				switch {
				case !ok:
					unsupported = append(unsupported, e)
				case !contains(t.Tools, n):
					t.Tools = append(t.Tools, n)
				}
				if ok && scope != "" {
					scoped = append(scoped, e)
				}
			}
		}
	}
	if f, ok := get("disallowedtools"); ok {
		toolsLine = cmp.Or(toolsLine, f.Line)
		var deny []string
		for _, e := range f.Items() {
			if n, scope, ok := mapTool(e, knownTools); ok && scope == "" {
				deny = append(deny, n)
			} else if ok {
				scoped = append(scoped, "disallowed "+e)
			}
		}
		if len(deny) > 0 {
			all := t.Tools
			if all == nil {
				all = knownTools
			}
			if all == nil {
				ignore(f.Line, "disallowedTools (the tool list is not known)")
			} else {
				t.Tools = []string{}
				for _, n := range all {
					if !contains(deny, n) {
						t.Tools = append(t.Tools, n)
					}
				}
			}
		}
	}
	if len(unsupported) > 0 {
		ignore(toolsLine, "tools "+strings.Join(unsupported, ", "))
	}
	if len(scoped) > 0 {
		ignore(toolsLine, "per-agent tool scopes "+strings.Join(scoped, ", ")+" (the tool is given whole; permission rules still apply)")
	}
	var extra []string
	extraLine := 0
	for _, k := range sortedKeys(fields) {
		switch k {
		case "name", "description", "model", "effort", "backend", "tools", "disallowedtools", "disabled", "isolation", "runs_on", "hooks", "skills":
			continue
		}
		if quietField(k) {
			continue
		}
		if extraLine == 0 || fields[k].Line < extraLine {
			extraLine = fields[k].Line
		}
		extra = append(extra, fields[k].Name)
	}
	if len(extra) > 0 {
		ignore(extraLine, "fields "+strings.Join(extra, ", "))
	}
	if len(warn.Ignored) == 0 {
		warn = nil
	}
	return t, warn, nil
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

func sortedKeys(m map[string]frontmatter.Field) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]].Line < m[keys[j]].Line })
	return keys
}

// parseHooks reads the file's hooks: (Claude Code's settings shape, in
// YAML) into t; what cannot run is named through ignore.
func parseHooks(t *Type, f frontmatter.Field, ignore func(line int, what string)) {
	if f.Decoded == nil {
		ignore(f.Line, "hooks (not a mapping of events, or the front matter is not valid YAML)")
		return
	}
	cfg, warnings, err := hooks.FromValue(f.Decoded, t.Source)
	if err != nil {
		ignore(f.Line, err.Error())
		return
	}
	for _, w := range warnings {
		ignore(f.Line, w)
	}
	t.Hooks = cfg
}
