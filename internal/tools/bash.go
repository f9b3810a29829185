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

const bashDescription = `Runs a command with /bin/bash -c in the workspace root and returns its combined stdout and stderr.

Usage:
- Every call starts a fresh shell in the workspace root: cd, variables and other shell state do not carry over between calls. Use absolute paths or cd within the same command (cmd1 && cmd2).
- There is no input: stdin is /dev/null, so interactive programs (editors, pagers, prompts, git rebase -i) will not work. Pass flags that make commands non-interactive.
- timeout_ms defaults to 120000 (2 minutes) and may be at most 600000 (10 minutes). On timeout the command and every process it started are stopped.
- Processes the command leaves running in the background are stopped when it returns: this tool cannot keep a server running after the call.
- Output over 30000 characters is cut in the middle, keeping its start and end. Redirect to a file and use grep or read for large output.
- A non-zero exit status is reported as an error together with the output.
- Prefer the dedicated tools to shell commands: read instead of cat, head or tail; glob instead of find or ls -R; grep instead of grep or rg; edit and write instead of sed, awk or echo redirection.
- Quote paths that contain spaces. Independent commands can run at once as several calls in one message; chain dependent ones with &&.
- Give a short description (5-10 words) of what the command does, for the user.`

const bashSchema = `{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The command to run."},
    "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000, "description": "Timeout in milliseconds (default 120000, at most 600000)."},
    "description": {"type": "string", "description": "What the command does, in 5-10 words."}
  },
  "required": ["command"],
  "additionalProperties": false
}`

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
	switch t.ws.Sandbox.Mode() {
	case sandbox.WorkspaceWrite:
		return bashDescription + "\n- Commands run in a sandbox: they may write only in the workspace, the extra folders and $TMPDIR, may not read secret stores such as ~/.ssh" + t.networkNote()
	case sandbox.ReadOnly:
		return bashDescription + "\n- Commands run in a read-only sandbox: they may write only in $TMPDIR, may not read secret stores such as ~/.ssh" + t.networkNote()
	}
	return bashDescription
}

func (t *bashTool) networkNote() string {
	if t.ws.Sandbox.Network() {
		return "."
	}
	return " and have no network access."
}
func (*bashTool) Schema() json.RawMessage { return json.RawMessage(bashSchema) }
func (*bashTool) Kind() Kind              { return Exec }

type bashInput struct {
	Command     string `json:"command"`
	TimeoutMS   *int64 `json:"timeout_ms"`
	Description string `json:"description"`
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

	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("creating the output pipe: %w", err)
	}
	cmd := exec.Command("/bin/bash", "-c", in.Command)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = pw, pw // one *os.File: no copying goroutines in exec
	cmd.Env = append(append(toolEnv(os.Environ()), toolEnv(t.ws.Env)...), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	cmd.SysProcAttr = procgroup.CommandAttr() // no controlling terminal, a group of its own
	// Here, not on the sandboxed thread Start uses: the watchdog is not confined.
	reaper.Guard(cmd)
	if err := t.ws.Sandbox.Start(cmd); err != nil {
		pr.Close()
		pw.Close()
		return Result{}, fmt.Errorf("starting /bin/bash in %s: %w", dir, err)
	}
	pw.Close() // the children hold their own copies

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
