package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// background starts in's command as a background shell and returns its
// id at once.
func (t *bashTool) background(call Call, in bashInput, dir string) (Result, error) {
	if t.ws.Shells == nil {
		return Result{}, errors.New("run_in_background is not available here: run the command in the foreground")
	}
	id, err := t.ws.Shells.start(t.ws, dir, in.Command, in.Description, call.AgentID, call.ID)
	if err != nil {
		return Result{}, err
	}
	return Result{Content: fmt.Sprintf("Command running in background with ID: %s. Read its new output with bash_output; you will be told its exit status and output when it exits.", id)}, nil
}

const bashOutputSchema = `{
  "type": "object",
  "properties": {
    "shell_id": {"type": "string", "description": "The id bash returned for a background command, e.g. shell-1"},
    "filter": {"type": "string", "description": "A regular expression: only the new lines matching it are returned (the others are read and dropped)"}
  },
  "required": ["shell_id"],
  "additionalProperties": false
}`

type bashOutputTool struct {
	SchemaCache
	shells *Shells
}

// NewBashOutput returns bash_output, which reads a background shell's new
// output and status.
func NewBashOutput(shells *Shells) Tool { return &bashOutputTool{shells: shells} }

func (*bashOutputTool) Name() string { return "bash_output" }
func (*bashOutputTool) Description() string {
	return "Returns the output a background shell (bash with run_in_background) wrote since the last bash_output of it, and whether it still runs or its exit status. Non-blocking."
}
func (*bashOutputTool) Schema() json.RawMessage { return json.RawMessage(bashOutputSchema) }
func (*bashOutputTool) Kind() Kind              { return ReadOnly }

type shellInput struct {
	ShellID string `json:"shell_id"`
	Filter  string `json:"filter"`
}

func (t *bashOutputTool) Run(_ context.Context, call Call) (Result, error) {
	in, err := decodeInput[shellInput](t.Name(), call.Input)
	if err != nil {
		return Result{}, err
	}
	var filter *regexp.Regexp
	if in.Filter != "" {
		if filter, err = regexp.Compile(in.Filter); err != nil {
			return Result{}, fmt.Errorf("filter is not a regular expression: %w", err)
		}
	}
	sh, err := t.shells.lookup(in.ShellID, call.AgentID)
	if err != nil {
		return Result{}, err
	}
	return Result{Content: formatShellRead(sh.id, sh.readNew(), filter)}, nil
}

// formatShellRead is what bash_output tells the model: the status, then
// the new output (the matching lines with a filter), its end when longer
// than bash's output limit.
func formatShellRead(id string, r ShellRead, filter *regexp.Regexp) string {
	var b strings.Builder
	switch {
	case r.Running:
		fmt.Fprintf(&b, "Shell %s is running.\n", id)
	case r.Stopped != "":
		fmt.Fprintf(&b, "Shell %s was stopped (%s).\n", id, r.Stopped)
	default:
		fmt.Fprintf(&b, "Shell %s exited with status %d.\n", id, r.ExitCode)
	}
	out := r.Output
	if filter != nil {
		var kept []string
		for line := range strings.Lines(out) {
			if filter.MatchString(strings.TrimRight(line, "\r\n")) {
				kept = append(kept, line)
			}
		}
		out = strings.Join(kept, "")
	}
	if r.Lost > 0 {
		fmt.Fprintf(&b, "(%d bytes of output since the last read were dropped: only the last %d KiB are kept)\n", r.Lost, ShellOutputKept>>10)
	}
	if len(out) > bashMaxOutput {
		fmt.Fprintf(&b, "(the first %d bytes of the new output are not shown)\n", len(out)-bashMaxOutput)
		out = out[len(out)-bashMaxOutput:]
	}
	out = strings.TrimRight(out, "\n")
	if out == "" {
		b.WriteString("No new output.")
	} else {
		b.WriteString("New output:\n" + out)
	}
	return b.String()
}

const killShellSchema = `{
  "type": "object",
  "properties": {
    "shell_id": {"type": "string", "description": "The id bash returned for a background command"}
  },
  "required": ["shell_id"],
  "additionalProperties": false
}`

type killShellTool struct {
	SchemaCache
	shells *Shells
}

// NewKillShell returns kill_shell, which stops a background shell and
// everything it started.
func NewKillShell(shells *Shells) Tool { return &killShellTool{shells: shells} }

func (*killShellTool) Name() string { return "kill_shell" }
func (*killShellTool) Description() string {
	return "Stops a background shell (bash with run_in_background) and every process it started."
}
func (*killShellTool) Schema() json.RawMessage { return json.RawMessage(killShellSchema) }

// Kind: it only stops what the agent itself started, as cancel_task does.
func (*killShellTool) Kind() Kind { return Orchestrate }

func (t *killShellTool) Run(_ context.Context, call Call) (Result, error) {
	in, err := decodeInput[shellInput](t.Name(), call.Input)
	if err != nil {
		return Result{}, err
	}
	sh, err := t.shells.lookup(in.ShellID, call.AgentID)
	if err != nil {
		return Result{}, err
	}
	if err := t.shells.stop(sh, "killed by kill_shell"); err != nil {
		return Result{}, fmt.Errorf("stopping %s: %w", sh.id, err)
	}
	r := sh.readNew()
	if r.Stopped == "" {
		return Result{Content: fmt.Sprintf("Shell %s had already exited with status %d.", sh.id, r.ExitCode)}, nil
	}
	return Result{Content: fmt.Sprintf("Shell %s was stopped.", sh.id)}, nil
}
