// Package commands loads custom slash commands: Markdown prompt templates
// in .atomic/commands and .claude/commands (the project's and the user's),
// as Claude Code reads them, so "/review 42" sends the expanded prompt.
package commands

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomic-agent/atomic/internal/dotdirs"
	"github.com/atomic-agent/atomic/internal/frontmatter"
)

// Command is one custom slash command.
type Command struct {
	// Name is the command without its slash; a file in a subfolder is
	// namespaced by it: frontend/component.md is "frontend:component".
	Name         string
	Description  string
	ArgumentHint string
	// Prompt is the body, with $ARGUMENTS and $1..$9 still in it.
	Prompt string
	Path   string
	// Scope is "project" or "user".
	Scope string
	// AllowedTools (allowed-tools: in the file) are allowed without asking
	// for this prompt: its !`commands` and the turn it starts.
	AllowedTools []string
	// Model (model: in the file) answers this prompt; Claude Code's
	// aliases (sonnet, opus, haiku) and inherit leave the run's model.
	Model string
}

// Dir is a folder of command files and the scope its commands have.
type Dir = dotdirs.Dir

// Dirs are the folders searched, lowest precedence first (dotdirs.Find):
// the user's ~/.claude/commands and configDir/commands, then each
// folder's .claude/commands and .atomic/commands from the repository root
// down to dir. A later command of the same name wins, so a project
// command beats a user one and the nearest folder's beats the root's.
func Dirs(dir, home, configDir string) []Dir {
	return dotdirs.Find("commands", dotdirs.Places{Dir: dir, Home: home, ConfigDir: configDir})
}

// Set is the loaded commands by name.
type Set struct {
	byName map[string]Command
}

// Load reads the *.md files of dirs and their subfolders (missing folders
// are fine). A file that cannot be read, has malformed front matter or
// whose name is one of builtins (without slash) is skipped and returned
// as an error "path: why".
func Load(dirs []Dir, builtins []string) (*Set, []error) {
	s := &Set{byName: map[string]Command{}}
	reserved := map[string]bool{}
	for _, b := range builtins {
		reserved[strings.ToLower(strings.TrimPrefix(b, "/"))] = true
	}
	var problems []error
	for _, d := range dirs {
		var paths []string
		err := filepath.WalkDir(d.Path, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && path == d.Path {
					return fs.SkipDir
				}
				problems = append(problems, fmt.Errorf("%s: %w", path, err))
				return nil
			}
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
				paths = append(paths, path)
			}
			return nil
		})
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", d.Path, err))
		}
		sort.Strings(paths)
		for _, path := range paths {
			c, err := parseFile(d, path)
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: %w", path, err))
				continue
			}
			if reserved[c.Name] {
				problems = append(problems, fmt.Errorf("%s: /%s is a built-in command; this one is skipped (rename the file)", path, c.Name))
				continue
			}
			s.byName[c.Name] = c
		}
	}
	return s, problems
}

// knownField are the front-matter keys of Claude Code's command files.
func knownField(key string) bool {
	switch key {
	case "description", "argument-hint", "allowed-tools", "model", "disable-model-invocation":
		return true
	}
	return false
}

func parseFile(d Dir, path string) (Command, error) {
	data, err := frontmatter.ReadText(path)
	if err != nil {
		return Command{}, err
	}
	rel, err := filepath.Rel(d.Path, path)
	if err != nil {
		return Command{}, err
	}
	name := strings.ToLower(strings.ReplaceAll(filepath.ToSlash(strings.TrimSuffix(rel, ".md")), "/", ":"))
	if strings.ContainsAny(name, " \t") {
		return Command{}, fmt.Errorf("the command name %q has spaces", name)
	}
	fields, body, err := frontmatter.Text(data, knownField)
	if err != nil {
		return Command{}, err
	}
	c := Command{Name: name, Path: path, Scope: d.Scope, Prompt: strings.TrimSpace(body),
		Description: strings.TrimSpace(fields["description"]), ArgumentHint: strings.TrimSpace(fields["argument-hint"])}
	if c.Prompt == "" {
		return Command{}, errors.New("the command has no prompt (the file's body is empty)")
	}
	if c.Description == "" {
		c.Description = firstLine(c.Prompt)
	}
	c.AllowedTools = ToolList(fields["allowed-tools"])
	c.Model = model(fields["model"])
	return c, nil
}

// ToolList reads an allowed-tools field (of a command file or a skill):
// "[a, b]" (a YAML list) or "a, b" or "a b", keeping "Bash(git add:*)"
// whole.
func ToolList(v string) []string {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		v = v[1 : len(v)-1]
	}
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) {
			switch v[i] {
			case '(':
				depth++
				continue
			case ')':
				depth--
				continue
			case ',', ' ', '\t':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		if w := strings.Trim(strings.TrimSpace(v[start:i]), `"'`); w != "" {
			out = append(out, w)
		}
		start = i + 1
	}
	return out
}

// model is a model: field: Claude Code's aliases and inherit are the
// run's model (""), as for agent files on Atomic's own loop.
func model(m string) string {
	m = strings.TrimSpace(m)
	switch low, _, _ := strings.Cut(strings.ToLower(m), "["); low {
	case "", "inherit", "default", "sonnet", "opus", "haiku", "opusplan":
		return ""
	}
	return m
}

// firstLine is a prompt's first line without Markdown heading marks.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(strings.TrimLeft(line, "# "))
}

// Lookup finds a command by name (without slash, any case).
func (s *Set) Lookup(name string) (Command, bool) {
	if s == nil {
		return Command{}, false
	}
	c, ok := s.byName[strings.ToLower(name)]
	return c, ok
}

// All lists the commands by name.
func (s *Set) All() []Command {
	if s == nil {
		return nil
	}
	out := make([]Command, 0, len(s.byName))
	for _, c := range s.byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Expand resolves "/name args" typed by the user: ok is false when text
// is not a slash command of the set (a built-in, an unknown one, or not a
// command at all).
func (s *Set) Expand(text string) (prompt string, ok bool) {
	c, args, ok := s.Resolve(text)
	if !ok {
		return "", false
	}
	return c.Expand(args), true
}
