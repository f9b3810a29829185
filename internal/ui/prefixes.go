package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/memory"
	"github.com/atomic-agent/atomic/internal/permission"
)

// maxAttachBytes bounds one @ file's content sent with a prompt.
const maxAttachBytes = 64 << 10

// maxShellContext bounds a ! command's output kept for the next prompt.
const maxShellContext = 32 << 10

// Modes is the permission gate's mode, which Shift+Tab cycles.
type Modes interface {
	Mode() permission.Mode
	SetMode(permission.Mode)
}

// cycleMode moves the gate to the next mode: default → acceptEdits →
// plan → default (bypassPermissions, given on the command line, leaves for
// default).
func (m *Model) cycleMode() {
	if m.cfg.Modes == nil {
		return
	}
	next := permission.Default
	switch m.cfg.Modes.Mode() {
	case permission.Default:
		next = permission.AcceptEdits
	case permission.AcceptEdits:
		next = permission.Plan
	}
	m.cfg.Modes.SetMode(next)
}

// modeLabel is the status line's word for the gate's mode ("" for default).
func (m *Model) modeLabel() string {
	if m.cfg.Modes == nil {
		return ""
	}
	switch m.cfg.Modes.Mode() {
	case permission.AcceptEdits:
		return "⏵⏵ accept edits on"
	case permission.Plan:
		return "⏸ plan mode on"
	case permission.BypassPermissions:
		return "bypass permissions on"
	}
	return ""
}

// shellDoneMsg is a ! command's output, run off the UI's loop.
type shellDoneMsg struct {
	command, output string
	err             error
}

// shell runs the user's own ! command through Config.Shell (the gate and
// sandbox of the lead's bash), off the UI's loop.
func (m *Model) shell(command string) {
	m.tr.add(&userEntry{text: "! " + command})
	if m.cfg.Shell == nil {
		m.note(noteError, "! runs shell commands only in a chat with a workspace")
		return
	}
	run := m.cfg.Shell
	m.later = func() tea.Msg {
		out, err := run(context.Background(), command)
		return shellDoneMsg{command, out, err}
	}
}

// shellDone shows a ! command's output and keeps it for the next prompt,
// as Claude Code gives the model the user's own commands as context.
func (m *Model) shellDone(msg shellDoneMsg) {
	if msg.err != nil {
		m.note(noteError, "! "+msg.command+": "+msg.err.Error())
		return
	}
	out := strings.TrimRight(msg.output, "\n")
	if out == "" {
		out = "(no output)"
	}
	m.note(noteInfo, out)
	if len(out) > maxShellContext {
		out = out[:maxShellContext] + "\n[output truncated]"
	}
	m.pending = append(m.pending, fmt.Sprintf("<bash-input>%s</bash-input>\n<bash-stdout>%s</bash-stdout>", msg.command, out))
}

// remember adds a # line to the project's memory file.
func (m *Model) remember(line string) {
	if m.cfg.Workspace == "" {
		m.note(noteError, "# adds to the project's memory only in a chat with a workspace")
		return
	}
	file, err := memory.Remember(m.cfg.Workspace, line)
	if err != nil {
		m.note(noteError, err.Error())
		return
	}
	m.note(noteSuccess, fmt.Sprintf("Added to %s (memory loads it from the next session; the lead is told now)", filepath.Base(file)))
	m.pending = append(m.pending, "The user added this to the project's memory ("+filepath.Base(file)+"): "+strings.TrimSpace(line))
}

// mentionsReadyMsg is a prompt with its @ files read, off the UI's loop.
type mentionsReadyMsg struct{ typed, prompt string }

// mentions are the @paths of text, in order, each once.
func mentions(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		p := strings.TrimRight(strings.TrimPrefix(f, "@"), ",.;:!?)")
		if !strings.HasPrefix(f, "@") || p == "" || contains(out, p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// inWorkspace resolves p against the workspace, refusing a path that
// leads outside it (also through a symlink).
func (m *Model) inWorkspace(p string) (string, error) {
	root := m.cfg.Workspace
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, p)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("@%s: %w", p, err)
	}
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	}
	if rel, err := filepath.Rel(rootReal, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("@%s is outside the workspace: not attached", p)
	}
	return abs, nil
}

// sendWithMentions sends text, first reading its @ files (through
// Config.Attach, the read tool behind the permission gate) off the UI's
// loop; their content goes with the prompt, each bounded.
func (m *Model) sendWithMentions(text string) {
	paths := mentions(text)
	if len(paths) == 0 || m.cfg.Attach == nil || m.cfg.Workspace == "" {
		m.send(text, text)
		return
	}
	var files []string
	for _, p := range paths {
		if _, err := m.inWorkspace(p); err != nil {
			// An @name that is no file (a person, a handle) is just text.
			if !errors.Is(err, fs.ErrNotExist) {
				m.note(noteWarning, err.Error())
			}
			continue
		}
		files = append(files, p)
	}
	if len(files) == 0 {
		m.send(text, text)
		return
	}
	attach := m.cfg.Attach
	m.later = func() tea.Msg {
		var b strings.Builder
		b.WriteString(text)
		for _, p := range files {
			content, err := attach(context.Background(), p)
			if err != nil {
				fmt.Fprintf(&b, "\n\n(@%s could not be attached: %v)", p, err)
				continue
			}
			if len(content) > maxAttachBytes {
				content = content[:maxAttachBytes] + "\n[truncated: the file is longer; read it for the rest]"
			}
			fmt.Fprintf(&b, "\n\n<attached-file path=%q>\n%s\n</attached-file>", p, strings.TrimRight(content, "\n"))
		}
		return mentionsReadyMsg{text, b.String()}
	}
}
