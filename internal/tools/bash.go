package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/atomic-agent/atomic/internal/procgroup"
	"github.com/atomic-agent/atomic/internal/reaper"
	"github.com/atomic-agent/atomic/internal/sandbox"
)

const bashDescription = `Runs a command with bash -c in the workspace root and returns its stdout and stderr. Each call is a fresh shell (cd and variables do not carry over) with no stdin, so use non-interactive flags. Processes left in the background are stopped when it returns. Output over 30000 characters is cut in the middle. Prefer read, glob, grep, edit and write to cat, find, grep, sed or echo.`

const bashSchema = `{
  "type": "object",
  "properties": {
    "command": {"type": "string"},
    "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000, "description": "Default 120000"},
    "description": {"type": "string", "description": "What it does, in 5-10 words"}
  },
  "required": ["command"],
  "additionalProperties": false
}`

const bashBackgroundSchema = `{
  "type": "object",
  "properties": {
    "command": {"type": "string"},
    "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000, "description": "Default 120000"},
    "description": {"type": "string", "description": "What it does, in 5-10 words"},
    "run_in_background": {"type": "boolean", "description": "Return a shell id at once"}
  },
  "required": ["command"],
  "additionalProperties": false
}`

const bashBackgroundNote = ` run_in_background returns a shell id at once: bash_output reads its new output, kill_shell stops it; you are told when it exits (do not poll). It stops when you finish.`

// Bash limits.
const (
	bashDefaultTimeout = 120 * time.Second
	bashMaxTimeout     = 600 * time.Second
	bashMaxOutput      = 30000
	// bashKillGrace is how long processes get to exit after SIGTERM before
	// SIGKILL.
	bashKillGrace = 2 * time.Second
	// bashDrain bounds the wait for output after the process group is gone:
	// a process that left the group may still hold the pipe.
	bashDrain = 500 * time.Millisecond
)

type bashTool struct {
	SchemaCache
	ws        Workspace
	grace     time.Duration
	maxOutput int
}

// NewBash returns the bash tool, which runs shell commands in ws.Root.
func NewBash(ws Workspace) Tool {
	return &bashTool{ws: ws, grace: bashKillGrace, maxOutput: bashMaxOutput}
}

func (*bashTool) Name() string { return "bash" }

// Description tells the model about the sandbox when there is one, so
// that it expects refusals rather than retrying them.
func (t *bashTool) Description() string {
	d := bashDescription
	if t.ws.Shells != nil {
		d += bashBackgroundNote
	}
	switch t.ws.Sandbox.Mode() {
	case sandbox.WorkspaceWrite:
		return d + " Commands run in a sandbox: they may write only in the workspace, the extra folders and $TMPDIR, not read secrets such as ~/.ssh" + t.networkNote()
	case sandbox.ReadOnly:
		return d + " Commands run in a read-only sandbox: they may write only in $TMPDIR, not read secrets such as ~/.ssh" + t.networkNote()
	}
	return d
}

func (t *bashTool) networkNote() string {
	if t.ws.Sandbox.Network() {
		return "."
	}
	return " and have no network access."
}

// Schema offers run_in_background only where background shells run.
func (t *bashTool) Schema() json.RawMessage {
	if t.ws.Shells != nil {
		return json.RawMessage(bashBackgroundSchema)
	}
	return json.RawMessage(bashSchema)
}
func (*bashTool) Kind() Kind { return Exec }

type bashInput struct {
	Command     string `json:"command"`
	TimeoutMS   *int64 `json:"timeout_ms"`
	Description string `json:"description"`
	// Background is Claude Code's run_in_background.
	Background bool `json:"run_in_background"`
}

// Subject is the command, which permission patterns like bash(go test:*)
// match.
func (t *bashTool) Subject(input json.RawMessage) string {
	in, err := decodeInput[bashInput](t.Name(), input)
	if err != nil {
		return ""
	}
	return in.Command
}

// Run runs the command in a process group of its own (and a session of
// its own when Atomic has a terminal), with no controlling terminal and
// stdin /dev/null, and, however it ends
// (exit, timeout, cancellation), ends the whole group: SIGTERM, then
// SIGKILL after a grace period. Processes that leave the group (setsid,
// double-forked daemons that change their group) are beyond its reach.
func (t *bashTool) Run(ctx context.Context, call Call) (Result, error) {
	in, err := decodeInput[bashInput](t.Name(), call.Input)
	if err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(in.Command) == "" {
		return Result{}, errors.New("command is empty")
	}
	timeout := bashDefaultTimeout
	if in.TimeoutMS != nil && *in.TimeoutMS > 0 {
		timeout = time.Duration(min(*in.TimeoutMS, bashMaxTimeout.Milliseconds())) * time.Millisecond
	}
	dir, err := t.ws.root()
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}

	if in.Background {
		return t.background(call, in, dir)
	}
	cmd, pr, err := startShell(t.ws, dir, in.Command)
	if err != nil {
		return Result{}, err
	}

	out := newHeadTail(t.maxOutput)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, pr)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	pgid := cmd.Process.Pid
	var waitErr error
	var stopped string // why the command was stopped, if it was
	select {
	case waitErr = <-exited:
	case <-ctx.Done():
		stopped = "interrupted"
		waitErr = stopRunning(pgid, t.grace, exited)
	case <-timer.C:
		stopped = fmt.Sprintf("timed out after %s", timeout)
		waitErr = stopRunning(pgid, t.grace, exited)
	}
	killGroup(pgid, t.grace) // whatever bash left behind in its group
	select {
	case <-copied:
	case <-time.After(bashDrain):
		_ = pr.SetReadDeadline(time.Now())
		<-copied
	}
	pr.Close()

	output := strings.TrimRight(out.String(), "\n")
	if line := t.ws.Sandbox.Check(); line != "" {
		output = strings.TrimLeft(output+"\n"+line, "\n")
	}
	if stopped != "" {
		msg := fmt.Sprintf("Command %s; it and the processes it started were stopped.", stopped)
		if output != "" {
			msg += "\nOutput so far:\n" + output
		}
		return Result{Content: msg, IsError: true}, nil
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return Result{}, fmt.Errorf("running the command: %w", waitErr)
	}
	if output == "" {
		output = "(no output)"
	}
	if exitErr != nil {
		msg := output + "\n\n" + exitErr.Error()
		if line := t.ws.Sandbox.Explain(output); line != "" {
			msg += "\n" + line
		}
		return Result{Content: msg, IsError: true}, nil
	}
	return Result{Content: output}, nil
}

// startShell starts command with /bin/bash -c in dir, in a process group
// of its own (and a session of its own when Atomic has a terminal), with
// no controlling terminal, stdin /dev/null, ws's environment and sandbox,
// and the watchdog guarding it; it returns the pipe its stdout and stderr
// both write to. The foreground and background bash share it, so a
// background command is confined exactly as a foreground one.
func startShell(ws Workspace, dir, command string) (*exec.Cmd, *os.File, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("creating the output pipe: %w", err)
	}
	cmd := exec.Command("/bin/bash", "-c", command)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = pw, pw // one *os.File: no copying goroutines in exec
	cmd.Env = append(append(toolEnv(os.Environ()), toolEnv(ws.Env)...), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	cmd.SysProcAttr = procgroup.CommandAttr() // no controlling terminal, a group of its own
	// Here, not on the sandboxed thread Start uses: the watchdog is not confined.
	reaper.Guard(cmd)
	if err := ws.Sandbox.Start(cmd); err != nil {
		pr.Close()
		pw.Close()
		return nil, nil, fmt.Errorf("starting /bin/bash in %s: %w", dir, err)
	}
	pw.Close() // the children hold their own copies
	return cmd, pr, nil
}

// stopRunning ends the process group of a running command and returns the
// command's wait result: SIGTERM to the group, SIGKILL if it has not exited
// within grace.
func stopRunning(pgid int, grace time.Duration, exited <-chan error) error {
	_ = procgroup.Signal(pgid, syscall.SIGTERM)
	select {
	case err := <-exited:
		return err
	case <-time.After(grace):
		_ = procgroup.Signal(pgid, syscall.SIGKILL)
		return <-exited
	}
}

// killGroup ends every process left in the group pgid after its leader
// exited: SIGTERM, then SIGKILL for those still alive after grace.
func killGroup(pgid int, grace time.Duration) {
	if err := procgroup.Signal(pgid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return // nothing left: the common case
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !groupAlive(pgid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = procgroup.Signal(pgid, syscall.SIGKILL)
}

// groupAlive reports whether a process of group pgid is still running.
// Exited members that nobody has reaped yet (zombies, whose parent may be
// an init that never reaps) do not count.
func groupAlive(pgid int) bool {
	if err := procgroup.Signal(pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return true // no /proc: trust kill
	}
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		state, pgrp, ok := procStat(filepath.Join("/proc", p.Name(), "stat"))
		if ok && pgrp == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// procStat reads a process's state and process group from /proc/PID/stat.
func procStat(path string) (state byte, pgrp int, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	// The command name is in parentheses and may contain anything; the
	// fields after the last ")" are: state ppid pgrp ...
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pgrp, true
}
