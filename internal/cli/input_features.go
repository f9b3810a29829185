package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// maxHistorySessions bounds the folder's sessions Ctrl+R searches.
const maxHistorySessions = 50

// attachFile reads an @ file of the chat's input with the read tool
// behind the gate, as a command file's @path is read.
func attachFile(ctx context.Context, s *setup, path string) (string, error) {
	content, found, err := (&commandRefs{gate: s.gate, ws: s.workspace}).File(path)
	if err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("%s: no such file", path)
	}
	return content, nil
}

// userShell runs the chat's ! command: the user's own, so what the gate
// would ask about counts as answered by typing it; what the gate denies
// (deny rules, plan mode) stays denied, and the bash tool's sandbox and
// environment scrubbing apply as to the model's commands.
func userShell(ctx context.Context, s *setup, command string) (string, error) {
	bash := tools.NewBash(s.workspace)
	raw := []byte(fmt.Sprintf(`{"command":%q}`, command))
	req := permission.Request{ID: "user-shell", AgentID: event.LeadID, AgentName: "user", Tool: bash.Name(),
		Kind: bash.Kind(), Subject: command, Input: raw}
	if d, decided := s.gate.Check(req); decided && !d.Allow {
		return "", errors.New(d.Reason)
	}
	res := tools.Execute(ctx, bash, tools.Call{ID: "user-shell", Input: raw, AgentID: event.LeadID})
	return res.Content, nil
}

// folderPrompts are the prompts of this folder's stored sessions, oldest
// first, for Ctrl+R; a store that cannot be read gives none.
func folderPrompts(ctx context.Context, ios IOStreams) []string {
	st, err := openSessions(ctx, ios)
	if err != nil {
		return nil
	}
	defer st.Close()
	all, err := st.Sessions(ctx)
	if err != nil {
		return nil
	}
	var out []string
	n := 0
	for i := len(all) - 1; i >= 0; i-- { // oldest first
		if !sameDir(all[i].Dir, ios.Dir) {
			continue
		}
		if n++; n > maxHistorySessions {
			break
		}
		ps, err := st.Prompts(ctx, all[i].ID)
		if err == nil {
			out = append(out, ps...)
		}
	}
	return out
}
