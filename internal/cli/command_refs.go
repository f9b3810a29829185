package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/atomic-agent/atomic/internal/commands"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// commandRefs runs a command file's !`commands` and reads its @paths as
// the lead's own bash and read calls would: through the permission gate
// (headless, what would be asked is denied) and, for commands, the
// sandbox; files only inside the workspace or its allowed folders, never
// one a Read deny rule covers.
type commandRefs struct {
	gate *permission.Gate
	ws   tools.Workspace
	n    atomic.Int64
}

var _ commands.Runner = (*commandRefs)(nil)

func (r *commandRefs) call(ctx context.Context, t tools.Tool, input map[string]string) (tools.Result, error) {
	raw, err := json.Marshal(input)
	if err != nil {
		return tools.Result{}, err
	}
	id := fmt.Sprintf("command-ref-%d", r.n.Add(1))
	subject := ""
	if s, ok := t.(tools.Subjecter); ok {
		subject = s.Subject(raw)
	}
	d := r.gate.Decide(ctx, permission.Request{ID: id, AgentID: event.LeadID, AgentName: event.LeadID,
		Tool: t.Name(), Kind: t.Kind(), Subject: subject, Input: raw})
	if !d.Allow {
		return tools.Result{}, errors.New(d.Reason)
	}
	res := tools.Execute(ctx, t, tools.Call{ID: id, Input: raw, AgentID: event.LeadID})
	if res.IsError {
		return res, errors.New(res.Content)
	}
	return res, nil
}

// Shell runs command; its output, failing or not, is inlined, as Claude
// Code does (a non-zero exit is part of what the prompt reports).
func (r *commandRefs) Shell(ctx context.Context, command string) (string, error) {
	res, err := r.call(ctx, tools.NewBash(r.ws), map[string]string{"command": command})
	if err != nil && res.Content == "" {
		return "", err
	}
	return res.Content, nil
}

// File reads path with the read tool (Claude Code inlines an @path as a
// read of it); found is false when nothing is there.
func (r *commandRefs) File(path string) (string, bool, error) {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.ws.Root, path)
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	res, err := r.call(context.Background(), tools.NewRead(r.ws), map[string]string{"file_path": path})
	if err != nil {
		return "", true, err
	}
	return res.Content, true, nil
}

// renderCommand is the prompt of command file cmd given args: its
// allowed-tools granted to the lead for this prompt (the runtime ends the
// grant with the lead's turn), then its !`commands` run and @paths read.
func renderCommand(ctx context.Context, s *setup, cmd commands.Command, args string, warn func(string)) (string, error) {
	if len(cmd.AllowedTools) > 0 {
		if err := s.gate.Grant(event.LeadID, cmd.AllowedTools); err != nil {
			warn(fmt.Sprintf("/%s (%s): allowed-tools: %v", cmd.Name, cmd.Path, err))
		}
	}
	if !cmd.HasRefs() {
		return cmd.Expand(args), nil
	}
	return cmd.Render(ctx, args, &commandRefs{gate: s.gate, ws: s.workspace})
}
