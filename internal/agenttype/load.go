package agenttype

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomic-agent/atomic/internal/provider"
)

// FileError is a malformed agent file: it is reported and skipped.
type FileError struct {
	Path string
	Line int // 0 when unknown
	Err  error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// Dirs returns the folders searched for agent files, lowest precedence
// first: the user's config folder, then the project's .claude/agents and
// .atomic/agents.
func Dirs(projectRoot, userConfigDir string) []string {
	var dirs []string
	if userConfigDir != "" {
		dirs = append(dirs, filepath.Join(userConfigDir, "agents"))
	}
	if projectRoot != "" {
		dirs = append(dirs, filepath.Join(projectRoot, ".claude", "agents"), filepath.Join(projectRoot, ".atomic", "agents"))
	}
	return dirs
}

// Warning is an agent file that loaded without some of what it asks for
// (Claude Code fields or tools Atomic lacks): one per file, naming them.
type Warning struct {
	Path    string
	Line    int // of the first thing ignored; 0 when unknown
	Ignored []string
}

func (w *Warning) Error() string {
	at := w.Path
	if w.Line > 0 {
		at = fmt.Sprintf("%s:%d", w.Path, w.Line)
	}
	return fmt.Sprintf("%s: loaded without what Atomic lacks: %s", at, strings.Join(w.Ignored, "; "))
}

// Load builds a registry from the built-ins and the *.md files in dirs
// (missing folders are fine). Malformed files are skipped and returned as
// *FileError values naming the path and line; files loaded without some of
// what they ask for are returned as *Warning values.
func Load(dirs []string, knownTools []string) (*Registry, []error) {
	r := NewRegistry()
	var problems []error
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, &FileError{Path: dir, Err: err})
			}
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			data, err := ReadRegular(path)
			if err != nil {
				problems = append(problems, &FileError{Path: path, Err: err})
				continue
			}
			t, warn, err := Parse(path, data, knownTools)
			if err != nil {
				problems = append(problems, err)
				continue
			}
			if warn != nil {
				problems = append(problems, warn)
			}
			if !t.Disabled {
				r.Add(t)
			}
		}
	}
	return r, problems
}

// ReadRegular reads a regular file (or a link to one) and refuses
// anything else: a named pipe or a device among the Markdown files Atomic
// reads at start (agents, commands) would block start-up or never end.
func ReadRegular(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return os.ReadFile(path)
}

// field is one front-matter entry: a scalar, a list of scalars, or
// something else (a mapping), which only ignored fields may be.
type field struct {
	name   string // as written
	line   int    // in the file, counting the opening ---
	value  string
	list   []string
	isList bool
	other  bool
}

// Parse reads one agent file, in Atomic's format or Claude Code's. It
// is liberal: a file without front matter or without a name takes its
// name from the file name and its description from its first line; front
// matter that is not valid YAML, as Claude Code files often are (a
// description with "Context: …" and "user: …" in it), is read line by
// line; literal \n in a description are line breaks; Claude Code's tool
// names and fields are mapped, and what Atomic lacks is named in the
// returned *Warning (nil when nothing was ignored). Errors are *FileError
// with the line where known, for files that cannot be read as an agent.
func Parse(path string, data []byte, knownTools []string) (Type, *Warning, error) {
	fail := func(line int, format string, args ...any) (Type, *Warning, error) {
		return Type{}, nil, &FileError{Path: path, Line: line, Err: fmt.Errorf(format, args...)}
	}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	warn := &Warning{Path: path}
	ignore := func(line int, what string) {
		if len(warn.Ignored) == 0 {
			warn.Line = line
		}
		warn.Ignored = append(warn.Ignored, what)
	}
	var fields map[string]field
	head, body, has, err := splitFrontMatter(data)
	if err != nil {
		return fail(1, "%v", err)
	}
	if has {
		if fields, err = parseFrontMatter(head, knownField); err != nil {
			return fail(yamlErrLine(err), "bad front matter: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
	} else {
		fields = map[string]field{}
		ignore(1, "no YAML front matter (name taken from the file name)")
	}
	get := func(key string) (field, bool) {
		f, ok := fields[key]
		return f, ok
	}
	t := Type{Source: path, Prompt: strings.TrimSpace(string(body))}
	name, hasName := get("name")
	t.Name = strings.TrimSpace(name.value)
	if !hasName || t.Name == "" {
		t.Name = strings.TrimSuffix(filepath.Base(path), ".md")
		if len(fields) > 0 {
			ignore(1, "no name (taken from the file name)")
		}
	}
	if strings.ContainsAny(t.Name, " \t/\\") {
		clean := strings.Join(strings.FieldsFunc(t.Name, func(r rune) bool { return strings.ContainsRune(" \t/\\", r) }), "-")
		ignore(name.line, fmt.Sprintf("name %q has spaces or slashes (used as %q)", t.Name, clean))
		t.Name = clean
	}
	if t.Name == "" {
		return fail(name.line, "no usable name")
	}
	desc, _ := get("description")
	t.Description = strings.TrimSpace(strings.ReplaceAll(desc.value, `\n`, "\n"))
	if t.Description == "" {
		t.Description = firstLine(t.Prompt)
		if t.Description == "" {
			t.Description = "Custom agent " + t.Name + " (" + filepath.Base(path) + ")"
		}
		if len(fields) > 0 {
			ignore(max(name.line, 1), "no description (taken from the prompt)")
		}
	}
	if m, ok := get("model"); ok {
		t.Model = claudeModel(m.value)
	}
	if f, ok := get("effort"); ok {
		e, err := provider.ParseEffort(f.value)
		if err != nil {
			ignore(f.line, fmt.Sprintf("effort %q (one of low, medium, high, max; the lead's level is inherited)", f.value))
		}
		t.Effort = e
	}
	if b, ok := get("backend"); ok {
		t.Backend = strings.ToLower(strings.TrimSpace(b.value))
	}
	if f, ok := get("isolation"); ok {
		switch v := strings.ToLower(strings.TrimSpace(f.value)); v {
		case Worktree:
			t.Isolation = Worktree
		case "":
		default:
			ignore(f.line, fmt.Sprintf("isolation %q (only worktree is supported)", f.value))
		}
	}
	if f, ok := get("runs_on"); ok {
		switch v := strings.ToLower(strings.TrimSpace(f.value)); v {
		case Workers:
			t.RunsOn = Workers
		case "", "local":
		default:
			ignore(f.line, fmt.Sprintf("runs_on %q (only workers is supported)", f.value))
		}
	}
	if f, ok := get("skills"); ok {
		t.Skills = entries(f)
	}
	if d, ok := get("disabled"); ok && strings.EqualFold(strings.TrimSpace(d.value), "true") {
		t.Disabled = true
	}
	var unsupported, scoped []string
	toolsLine := 0
	if f, ok := get("tools"); ok {
		toolsLine = f.line
		if entries := entries(f); !(len(entries) == 1 && entries[0] == "*") {
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
		toolsLine = cmp.Or(toolsLine, f.line)
		var deny []string
		for _, e := range entries(f) {
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
				ignore(f.line, "disallowedTools (the tool list is not known)")
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
		case "name", "description", "model", "effort", "backend", "tools", "disallowedtools", "disabled", "isolation", "runs_on", "skills":
			continue
		}
		if quietField(k) {
			continue
		}
		if extraLine == 0 || fields[k].line < extraLine {
			extraLine = fields[k].line
		}
		extra = append(extra, fields[k].name)
	}
	if len(extra) > 0 {
		ignore(extraLine, "fields "+strings.Join(extra, ", "))
	}
	if len(warn.Ignored) == 0 {
		warn = nil
	}
	return t, warn, nil
}
