package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/subagent"
)

// WorktreeControl is what /worktrees does with isolated agents'
// worktrees; *subagent.Manager implements it.
type WorktreeControl interface {
	Worktrees(ctx context.Context) ([]subagent.Worktree, error)
	MergeWorktree(ctx context.Context, id string) (string, error)
	DiscardWorktree(ctx context.Context, id string) (string, error)
}

// worktreeTimeout bounds the git commands a /worktrees command runs.
const worktreeTimeout = 30 * time.Second

// worktreesCommand lists the worktrees (/worktrees), or merges or
// discards one (/worktrees merge ID, /worktrees discard ID).
func (m *Model) worktreesCommand(args []string) {
	w := m.cfg.Worktrees
	if w == nil {
		m.note(noteInfo, "No worktrees in this session.")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), worktreeTimeout)
	defer cancel()
	if len(args) == 2 {
		var msg string
		var err error
		switch strings.ToLower(args[0]) {
		case "merge":
			msg, err = w.MergeWorktree(ctx, args[1])
		case "discard":
			msg, err = w.DiscardWorktree(ctx, args[1])
		default:
			err = fmt.Errorf("unknown action %q", args[0])
		}
		if err != nil {
			m.note(noteError, err.Error())
			return
		}
		m.note(noteSuccess, msg)
		return
	}
	if len(args) != 0 {
		m.note(noteError, "Usage: /worktrees, /worktrees merge ID, /worktrees discard ID")
		return
	}
	list, err := w.Worktrees(ctx)
	if err != nil {
		m.note(noteError, err.Error())
		return
	}
	if len(list) == 0 {
		m.note(noteInfo, "No worktrees: no agent ran with isolation worktree, and no earlier run left one.")
		return
	}
	var b strings.Builder
	b.WriteString("Worktrees (/worktrees merge ID applies one onto your tree, /worktrees discard ID drops it):")
	for _, t := range list {
		fmt.Fprintf(&b, "\n  %s · %s · %s", t.ID, t.Branch, t.State)
		if t.Stat != "" {
			b.WriteString(" · " + t.Stat)
		}
		if t.Task != "" {
			b.WriteString("\n      " + oneLine(t.Task))
		}
	}
	m.note(noteInfo, b.String())
}
