package cli

import (
	"fmt"
	"strings"

	"github.com/atomic-agent/atomic/internal/skills"
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
