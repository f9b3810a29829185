package cli

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/atomic-agent/atomic/internal/acp"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/skills"
	"github.com/atomic-agent/atomic/internal/ui"
)

// loadSkills reads the skills of dirs, the user's and the project's (the
// project's allowed-tools held unless trustProject), and
// preloads into each agent type the skills its file lists (skills:), as
// Claude Code does for sub-agents. Problems join the start's warnings.
func loadSkills(dirs []skills.Dir, trustProject bool, s *setup) {
	set, problems := skills.Load(dirs)
	for _, p := range problems {
		s.warnings = append(s.warnings, fmt.Sprintf("skipped skill: %v", p))
	}
	if !trustProject {
		if held := set.HoldProjectGrants(); len(held) > 0 {
			s.warnings = append(s.warnings, "the project's skills would allow tools without asking: "+strings.Join(held, "; ")+
				"; not applied (the tools are asked for as usual): give --trust-project-settings to apply them, or keep the skill in ~/.claude/skills")
		}
	}
	s.skills = set
	if s.types == nil {
		return
	}
	for _, t := range s.types.All() {
		if len(t.Skills) == 0 {
			continue
		}
		block, missing := set.Preload(t.Skills)
		if len(missing) > 0 {
			s.warnings = append(s.warnings, fmt.Sprintf("agent %s (%s): skills not found: %s", t.Name, t.Source, strings.Join(missing, ", ")))
		}
		if block != "" {
			t.Prompt += block
			s.types.Add(t)
		}
	}
}

// skillCommands offers the skills as slash commands (Claude Code's menu
// lists them beside the command files), except names a command file
// takes: the command wins, as in Resolve's order.
func skillCommands(s *setup) []acp.Command {
	var out []acp.Command
	for _, sk := range s.skills.All() {
		if _, taken := s.commands.Lookup(sk.Name); taken {
			continue
		}
		out = append(out, acp.Command{Name: sk.Name, Description: sk.Description, Hint: "arguments for the skill (optional)"})
	}
	return out
}

// expandSkill turns "/NAME args" naming a skill into the lead's prompt:
// the skill loaded as the skill tool loads it (its allowed-tools granted
// to the lead until its turn ends), as Claude Code runs a skill the user
// invokes. A skill the model may not load itself (disable-model-
// invocation) is still the user's to invoke. ok is false for any other
// text.
func expandSkill(s *setup, text string) (prompt string, ok bool, err error) {
	return loadInvokedSkill(s, text, func(rules []string) error { return s.gate.Grant(event.LeadID, rules) })
}

// loadInvokedSkill is expandSkill granting the allowed-tools with grant.
func loadInvokedSkill(s *setup, text string, grant func(rules []string) error) (prompt string, ok bool, err error) {
	name, args := strings.TrimSpace(text), ""
	if i := strings.IndexFunc(name, unicode.IsSpace); i >= 0 {
		name, args = name[:i], strings.TrimSpace(name[i:])
	}
	n, isSlash := strings.CutPrefix(name, "/")
	sk, found := s.skills.Get(n)
	if !isSlash || !found {
		return "", false, nil
	}
	body, err := sk.Instructions(args, grant)
	if err != nil {
		return "", true, fmt.Errorf("/%s: %w", sk.Name, err)
	}
	return fmt.Sprintf("<command-name>/%s</command-name>\n<command-args>%s</command-args>\nThe user invoked the skill %q; follow it.\n\n%s", sk.Name, args, sk.Name, body), true, nil
}

// tuiSkills offers the skills to the chat and to ACP as slash commands.
type tuiSkills struct {
	s    *setup
	warn func(string)
}

func (t tuiSkills) List() []ui.SkillCommand {
	var out []ui.SkillCommand
	for _, sk := range t.s.skills.All() {
		out = append(out, ui.SkillCommand{Name: sk.Name, Description: sk.Description, Scope: sk.Scope})
	}
	return out
}

// Expand grants the skill's allowed-tools as its turn starts, not now:
// the lead may be in a turn of an earlier prompt, whose end revokes. A
// rule Atomic does not know is warned of then.
func (t tuiSkills) Expand(text string) (string, func(), bool, error) {
	var rules []string
	p, ok, err := loadInvokedSkill(t.s, text, func(r []string) error { rules = r; return nil })
	if len(rules) == 0 {
		return p, nil, ok, err
	}
	return p, func() {
		if err := t.s.gate.Grant(event.LeadID, rules); err != nil {
			t.warn(fmt.Sprintf("%s: %v", strings.Fields(text)[0], err))
		}
	}, ok, err
}
