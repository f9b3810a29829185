package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/atomic-agent/atomic/internal/tools"
)

// ToolName is the skill tool's name (Claude Code's Skill).
const ToolName = "skill"

const toolSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "description": "The skill's name"},
    "skill": {"type": "string", "description": "Same as name"},
    "args": {"type": "string", "description": "Optional arguments for the skill"}
  }
}`

// maxDescription bounds each skill's description in the tool's own: every
// request pays for these bytes.
const maxDescription = 250

// maxListed bounds the other files named in a loaded skill.
const maxListed = 30

// Grant allows rules (an allowed-tools list, Claude Code's spelling) to
// agentID without asking until its turn ends; it never overrides a deny.
type Grant func(agentID string, rules []string) error

type tool struct {
	tools.SchemaCache
	set   *Set
	desc  string
	grant Grant
}

// NewTool returns the skill tool offering set's skills, or nil when it
// offers none (the tool is then not given at all). grant may be nil: the
// skills' allowed-tools then allow nothing more.
func NewTool(set *Set, grant Grant) tools.Tool {
	offered := set.Offered()
	if len(offered) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("Loads a skill: instructions, and the folder of files they use, for one kind of task. When a task matches a skill's description, load it first and follow it.\n\nSkills:")
	for _, sk := range offered {
		d := strings.Join(strings.Fields(sk.Description), " ")
		if utf8.RuneCountInString(d) > maxDescription {
			d = string([]rune(d)[:maxDescription]) + "…"
		}
		b.WriteString("\n- " + sk.Name + ": " + d)
	}
	return &tool{set: set, desc: b.String(), grant: grant}
}

func (*tool) Name() string                        { return ToolName }
func (t *tool) Description() string               { return t.desc }
func (*tool) Schema() json.RawMessage             { return json.RawMessage(toolSchema) }
func (*tool) Kind() tools.Kind                    { return tools.ReadOnly }
func (t *tool) Subject(in json.RawMessage) string { n, _ := skillName(in); return n }

type input struct {
	Name    string `json:"name"`
	Skill   string `json:"skill"`   // Claude Code's Skill tool
	Command string `json:"command"` // its older spelling
	Args    string `json:"args"`
}

func skillName(raw json.RawMessage) (string, input) {
	var in input
	_ = json.Unmarshal(raw, &in)
	name := strings.TrimPrefix(strings.TrimSpace(firstSet(in.Name, in.Skill, in.Command)), "/")
	return name, in
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// Run loads the skill's body, tells the model its folder and other
// files, and grants its allowed-tools to the calling agent.
func (t *tool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	name, in := skillName(call.Input)
	if name == "" {
		return tools.Result{}, errors.New(`skill: give the skill's name: {"name": "…"}`)
	}
	sk, ok := t.set.Get(name)
	if !ok || sk.Hidden {
		var names []string
		for _, s := range t.set.Offered() {
			names = append(names, s.Name)
		}
		return tools.Result{}, fmt.Errorf("no skill %q; skills: %s", name, strings.Join(names, ", "))
	}
	var grant func([]string) error
	if t.grant != nil {
		grant = func(rules []string) error { return t.grant(call.AgentID, rules) }
	}
	text, err := sk.Instructions(in.Args, grant)
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: text}, nil
}

// otherFiles lists the files of dir beside SKILL.md, relative, up to
// maxListed (then "…").
func otherFiles(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			if e != nil && e.IsDir() && path != dir && strings.HasPrefix(e.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == "SKILL.md" {
			return nil
		}
		if len(out) == maxListed {
			out = append(out, "…")
			return fs.SkipAll
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out
}

// Instructions is sk loaded for an agent: its folder, its other files and
// its body with args filled in. grant (nil: none) allows its
// allowed-tools to that agent; a failed grant is named in the text.
func (sk Skill) Instructions(args string, grant func(rules []string) error) (string, error) {
	body, err := sk.Body()
	if err != nil {
		return "", err
	}
	if a := strings.TrimSpace(args); a != "" {
		if strings.Contains(body, "$ARGUMENTS") {
			body = strings.ReplaceAll(body, "$ARGUMENTS", a)
		} else {
			body += "\n\nARGUMENTS: " + a
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Base directory for this skill: %s\n", sk.Dir)
	if files := otherFiles(sk.Dir); len(files) > 0 {
		fmt.Fprintf(&b, "Its other files: %s\n", strings.Join(files, ", "))
	}
	if len(sk.AllowedTools) > 0 && grant != nil {
		fmt.Fprintf(&b, "Until this turn ends its allowed-tools are allowed without asking (deny rules still hold): %s\n", strings.Join(sk.AllowedTools, ", "))
		if err := grant(sk.AllowedTools); err != nil {
			fmt.Fprintf(&b, "Some were %v\n", err)
		}
	}
	b.WriteString("\n" + body)
	return b.String(), nil
}
