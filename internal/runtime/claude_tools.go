package runtime

import (
	"errors"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/skills"
	"github.com/atomic-agent/atomic/internal/team"
	"github.com/atomic-agent/atomic/internal/tools"
)

// addClaudeTools puts into core what a Claude Code user's files add: the
// read tool that brings a folder's CLAUDE.md along (NestedMemory), and
// the skill tool when there are skills.
func (r *Runtime) addClaudeTools(core *tools.Set) {
	if read, ok := core.Get("read"); ok && r.cfg.NestedMemory != nil {
		core.Add(r.cfg.NestedMemory(read))
	}
	if t := skills.NewTool(r.cfg.Skills, r.grant); t != nil {
		core.Add(t)
	}
}

// grant gives agentID a skill's allowed-tools until its turn ends: the
// lead's turn, a sub-agent's task, a teammate's turn until it goes idle.
func (r *Runtime) grant(agentID string, rules []string) error {
	if r.cfg.Gate == nil {
		return errors.New("this run has no permission gate")
	}
	return r.cfg.Gate.Grant(agentID, rules)
}

func (r *Runtime) revoke(agentID string) {
	if r.cfg.Gate != nil {
		r.cfg.Gate.Revoke(agentID)
	}
}

// endGrants revokes the grants of an agent whose work e ends: a
// sub-agent's task, a teammate's turn (it goes idle or ends). The lead's
// end with its turn (Runtime.turn).
func (r *Runtime) endGrants(e event.Event) {
	switch e.Type {
	case event.SubagentComplete:
		r.revoke(e.AgentID)
	case event.TeammateStatus:
		if d, ok := e.Data.(event.TeammateStatusData); ok && d.Status != string(team.Working) {
			r.revoke(e.AgentID)
		}
	}
}
