// Package skills loads Claude Code's skills: folders holding a SKILL.md
// (front matter with name and description, then instructions) and any
// other files the instructions refer to. The model sees only each skill's
// name and description (in the skill tool's description) and loads a
// body when it needs it, as Claude Code does.
package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomic-agent/atomic/internal/commands"
	"github.com/atomic-agent/atomic/internal/dotdirs"
	"github.com/atomic-agent/atomic/internal/frontmatter"
)

// Skill is one skill's front matter; its body is read when it is loaded.
type Skill struct {
	Name        string
	Description string
	// Dir is the skill's folder (its other files), Path its SKILL.md.
	Dir, Path string
	// AllowedTools are allowed without asking while the skill is in use
	// (see Tool), as written ("Bash(git status:*)", "Read").
	AllowedTools []string
	// Hidden is disable-model-invocation: true: not offered to the model.
	Hidden bool
	// Scope is "project" or "user".
	Scope string
}

// Dir is a folder of skills and its scope ("user" or "project").
type Dir = dotdirs.Dir

// Dirs are the skills folders for a working directory, lowest precedence
// first (dotdirs.Find): the user's ~/.claude/skills, then from the
// repository root down to dir each .claude/skills and .atomic/skills. A
// later skill of the same name wins, so a project skill beats a user one.
func Dirs(dir, home string) []Dir {
	return dotdirs.Find("skills", dotdirs.Places{Dir: dir, Home: home})
}

// Set is the loaded skills by lower-cased name.
type Set struct {
	byName map[string]Skill
}

// Load reads dirs/*/SKILL.md (missing folders are fine). A skill that
// cannot be read or has malformed front matter is skipped and returned as
// an error "path: why".
func Load(dirs []Dir) (*Set, []error) {
	s := &Set{byName: map[string]Skill{}}
	var problems []error
	for _, d := range dirs {
		entries, err := os.ReadDir(d.Path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, fmt.Errorf("%s: %w", d.Path, err))
			}
			continue
		}
		for _, e := range entries { // ReadDir sorts by name
			dir := filepath.Join(d.Path, e.Name())
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				continue // a stray file, or a dangling link
			}
			path := filepath.Join(dir, "SKILL.md")
			sk, err := parse(path, d.Scope)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: %w", path, err))
				continue
			}
			s.byName[strings.ToLower(sk.Name)] = sk
		}
	}
	return s, problems
}

// knownField are the front-matter keys of Claude Code's SKILL.md files.
func knownField(key string) bool {
	switch key {
	case "name", "description", "allowed-tools", "model", "license", "version", "metadata",
		"disable-model-invocation", "user-invocable", "argument-hint", "when_to_use":
		return true
	}
	return false
}

func parse(path, scope string) (Skill, error) {
	data, err := frontmatter.ReadText(path)
	if err != nil {
		return Skill{}, err
	}
	fields, body, err := frontmatter.Text(data, knownField)
	if err != nil {
		return Skill{}, err
	}
	dir := filepath.Dir(path)
	sk := Skill{Name: strings.TrimSpace(fields["name"]), Description: strings.TrimSpace(fields["description"]),
		Dir: dir, Path: path, Scope: scope, Hidden: strings.EqualFold(strings.TrimSpace(fields["disable-model-invocation"]), "true")}
	if sk.Name == "" {
		sk.Name = filepath.Base(dir)
	}
	if strings.ContainsAny(sk.Name, " \t/\\") {
		return Skill{}, fmt.Errorf("the skill name %q has spaces or slashes", sk.Name)
	}
	if sk.Description == "" {
		sk.Description = firstLine(body)
	}
	if sk.Description == "" {
		return Skill{}, errors.New("the skill has no description and no body")
	}
	sk.AllowedTools = commands.ToolList(fields["allowed-tools"])
	return sk, nil
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#")); l != "" {
			return l
		}
	}
	return ""
}

// Get finds a skill by name, any case.
func (s *Set) Get(name string) (Skill, bool) {
	if s == nil {
		return Skill{}, false
	}
	sk, ok := s.byName[strings.ToLower(strings.TrimSpace(name))]
	return sk, ok
}

// All lists the skills by name.
func (s *Set) All() []Skill {
	if s == nil {
		return nil
	}
	out := make([]Skill, 0, len(s.byName))
	for _, sk := range s.byName {
		out = append(out, sk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Offered lists the skills the model may load itself.
func (s *Set) Offered() []Skill {
	var out []Skill
	for _, sk := range s.All() {
		if !sk.Hidden {
			out = append(out, sk)
		}
	}
	return out
}

// Body reads sk's instructions now (the file may have changed since the
// start), without front matter.
func (sk Skill) Body() (string, error) {
	data, err := frontmatter.ReadText(sk.Path)
	if err != nil {
		return "", fmt.Errorf("reading skill %s: %w", sk.Name, err)
	}
	_, body, err := frontmatter.Text(data, knownField)
	if err != nil {
		return "", fmt.Errorf("skill %s (%s): %w", sk.Name, sk.Path, err)
	}
	return strings.TrimSpace(body), nil
}

// Preload is the block an agent file's skills: adds to that agent's
// system prompt: each named skill's folder and body. Unknown names are
// returned in missing.
func (s *Set) Preload(names []string) (block string, missing []string) {
	var b strings.Builder
	for _, n := range names {
		sk, ok := s.Get(n)
		if !ok {
			missing = append(missing, n)
			continue
		}
		body, err := sk.Body()
		if err != nil {
			missing = append(missing, n+" ("+err.Error()+")")
			continue
		}
		fmt.Fprintf(&b, "\n\n<skill name=%q>\nBase directory for this skill: %s\n\n%s\n</skill>", sk.Name, sk.Dir, body)
	}
	return b.String(), missing
}

// HoldProjectGrants clears the allowed-tools of the project's skills and
// returns them as "name (Rule, …)": a repository's files, or the model's
// own edits, write those skills, and a grant the model can trigger
// itself would loosen the gate with no word from the user (applied with
// --trust-project-settings, as a project's settings allow rules are).
func (s *Set) HoldProjectGrants() []string {
	if s == nil {
		return nil
	}
	var held []string
	for _, sk := range s.All() {
		if sk.Scope != "project" || len(sk.AllowedTools) == 0 {
			continue
		}
		held = append(held, sk.Name+" ("+strings.Join(sk.AllowedTools, ", ")+")")
		sk.AllowedTools = nil
		s.byName[strings.ToLower(sk.Name)] = sk
	}
	return held
}
