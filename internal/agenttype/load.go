package agenttype

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
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

// Load builds a registry from the built-ins and the *.md files in dirs
// (missing folders are fine). Malformed files are skipped and returned as
// *FileError values naming the path and line.
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
			data, err := os.ReadFile(path)
			if err != nil {
				problems = append(problems, &FileError{Path: path, Err: err})
				continue
			}
			t, err := Parse(path, data, knownTools)
			if err != nil {
				problems = append(problems, err)
				continue
			}
			r.Add(t)
		}
	}
	return r, problems
}

type frontMatter struct {
	Name        string    `yaml:"name"`
	Description string    `yaml:"description"`
	Tools       toolsList `yaml:"tools"`
	Model       string    `yaml:"model"`
	Color       string    `yaml:"color"` // accepted for Claude Code compatibility
}

// toolsList accepts "read, grep" or [read, grep].
type toolsList []string

func (t *toolsList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		for _, s := range strings.Split(n.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*t = append(*t, s)
			}
		}
		return nil
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		*t = list
		return nil
	}
	return fmt.Errorf("line %d: tools must be a list or a comma-separated string", n.Line)
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// Parse reads one agent file. Errors are *FileError with the line (in the
// file, counting the opening ---) where known.
func Parse(path string, data []byte, knownTools []string) (Type, error) {
	fail := func(line int, format string, args ...any) (Type, error) {
		return Type{}, &FileError{Path: path, Line: line, Err: fmt.Errorf(format, args...)}
	}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return fail(1, "missing YAML front matter: the file must start with a --- line")
	}
	rest := data[4:]
	end := bytes.Index(rest, []byte("\n---"))
	if end < 0 {
		return fail(1, "front matter is not closed by a --- line")
	}
	head, body := rest[:end+1], rest[end+4:]
	body = bytes.TrimLeft(body, "-")
	var fm frontMatter
	dec := yaml.NewDecoder(bytes.NewReader(head))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil {
		line := 0
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			n, _ := strconv.Atoi(m[1])
			line = n + 1 // the opening --- is line 1
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		return fail(line, "bad front matter: %s", msg)
	}
	if strings.TrimSpace(fm.Name) == "" {
		return fail(lineOf(head, "name:"), "front matter needs a name")
	}
	if strings.ContainsAny(fm.Name, " \t/") {
		return fail(lineOf(head, "name:"), "name %q may not contain spaces or slashes", fm.Name)
	}
	if strings.TrimSpace(fm.Description) == "" {
		return fail(lineOf(head, "name:"), "front matter needs a description (the lead reads it to choose the agent)")
	}
	if knownTools != nil {
		known := map[string]bool{}
		for _, k := range knownTools {
			known[k] = true
		}
		for _, tl := range fm.Tools {
			if !known[tl] {
				return fail(lineOf(head, "tools:"), "unknown tool %q (known: %s)", tl, strings.Join(knownTools, ", "))
			}
		}
	}
	return Type{
		Name: fm.Name, Description: strings.TrimSpace(fm.Description), Tools: fm.Tools,
		Model: fm.Model, Prompt: strings.TrimSpace(string(body)), Source: path,
	}, nil
}

// lineOf finds the file line (1-based, counting the opening ---) of the
// first front-matter line starting with key.
func lineOf(head []byte, key string) int {
	for i, l := range strings.Split(string(head), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), key) {
			return i + 2
		}
	}
	return 1
}
