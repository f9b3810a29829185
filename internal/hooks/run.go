package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/procgroup"
	"github.com/atomic-agent/atomic/internal/reaper"
	"github.com/atomic-agent/atomic/internal/sandbox"
)

// Options are what every hook of a session runs with.
type Options struct {
	Config Config
	// Dir is the working directory hooks run in and their cwd; ProjectDir
	// is CLAUDE_PROJECT_DIR (empty: Dir).
	Dir, ProjectDir string
	// Env is the hooks' environment: what the model's commands get (no
	// provider keys, no Atomic secrets).
	Env []string
	// Sandbox confines hooks as it confines the model's commands (nil:
	// unconfined, as with --sandbox off).
	Sandbox *sandbox.Sandbox
	// TranscriptPath is given to hooks as transcript_path ("": none).
	TranscriptPath string
	// Mode is the permission mode hooks are told (nil: "default").
	Mode func() string
}

// Runner runs a session's hooks. A nil *Runner has no hooks. Safe for
// concurrent use.
type Runner struct{ o Options }

// New returns a Runner of o, or nil when o has no hooks.
func New(o Options) *Runner {
	if o.Config.Count() == 0 {
		return nil
	}
	if o.ProjectDir == "" {
		o.ProjectDir = o.Dir
	}
	return &Runner{o: o}
}

// Base returns a Runner of o even when o has no hooks (Has is then false
// for every event): the run's, to which With adds an agent file's hooks
// with the run's directory, sandbox and environment.
func Base(o Options) *Runner {
	if o.ProjectDir == "" {
		o.ProjectDir = o.Dir
	}
	return &Runner{o: o}
}

// With returns a Runner that also runs more (an agent file's hooks, while
// that agent runs); r is unchanged. base holds the session's options when
// r is nil (no settings hooks).
func (r *Runner) With(more Config, base Options) *Runner {
	if more.Count() == 0 {
		return r
	}
	o := base
	if r != nil {
		o = r.o
	}
	o.Config = o.Config.Merge(more)
	return New(o)
}

// Has reports whether any hook is attached to e.
func (r *Runner) Has(e Event) bool { return r != nil && len(r.o.Config[e]) > 0 }

// Input is what happened, as the hook's stdin tells it. Tool is Atomic's
// tool name; the hook sees Claude Code's.
type Input struct {
	Event              Event
	SessionID          string
	Tool               string
	ToolInput          json.RawMessage
	ToolResponse       any
	ToolUseID          string
	Prompt             string
	StopHookActive     bool
	Source             string // SessionStart: startup, resume, clear, compact
	Reason             string // SessionEnd
	Trigger            string // PreCompact: manual, auto
	CustomInstructions string
	Message            string // Notification
	NotificationType   string
	AgentID, AgentType string // SubagentStart, SubagentStop
	LastMessage        string // Stop, SubagentStop: the model's last text
}

// Result is what the hooks of one event decided together.
type Result struct {
	// Block is set when a hook exited 2, decided "block", or denied a
	// tool call; Reason is what the model (or, where the event cannot be
	// blocked, the user) is told.
	Block  bool
	Reason string
	// Decision is PreToolUse's permission decision: "deny" over "ask" over
	// "allow"; "" when no hook gave one.
	Decision string
	// DecisionReason is the reason given with Decision.
	DecisionReason string
	// Context is text for the model: additionalContext, and the plain
	// stdout of UserPromptSubmit and SessionStart hooks.
	Context []string
	// Stop is set by "continue": false: the agent stops after this step,
	// StopReason says why (to the user).
	Stop       bool
	StopReason string
}

// maxOutput bounds what is kept of a hook's stdout and stderr, and
// maxContext the context a hook adds (Claude Code's limit).
const (
	maxOutput  = 1 << 20
	maxContext = 10_000
)

// Run runs the hooks of in.Event whose matcher covers it, in parallel,
// and returns their joint result once all ended (each bounded by its
// timeout and by ctx). report is told of each run, for the hook.run
// event.
func (r *Runner) Run(ctx context.Context, in Input, report func(event.HookRunData)) Result {
	cmds := r.matching(in)
	if len(cmds) == 0 {
		return Result{}
	}
	stdin, err := json.Marshal(r.stdin(in))
	if err != nil { // cannot happen for these types; never run a hook blind
		return Result{}
	}
	outs := make([]outcome, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = r.runOne(ctx, c, stdin, in.Event)
		}()
	}
	wg.Wait()
	var res Result
	for i, o := range outs {
		res.add(o)
		if report != nil {
			d := event.HookRunData{Event: string(in.Event), Command: cmds[i].Command, Outcome: o.status,
				DurationMS: o.took.Milliseconds(), ExitCode: o.code, Message: o.message, Source: cmds[i].Source}
			if in.Tool != "" {
				d.Tool = ClaudeToolName(in.Tool)
			}
			report(d)
		}
	}
	return res
}

// matching are the commands of in.Event whose matcher covers in, each
// command once (as Claude Code runs identical commands once).
func (r *Runner) matching(in Input) []Command {
	if r == nil {
		return nil
	}
	var names []string
	switch in.Event {
	case PreToolUse, PostToolUse:
		names = toolNames(in.Tool)
	case SessionStart:
		names = []string{in.Source}
	case SessionEnd:
		names = []string{in.Reason}
	case PreCompact:
		names = []string{in.Trigger}
	case Notification:
		names = []string{in.NotificationType}
	case SubagentStart, SubagentStop:
		names = []string{in.AgentType}
	}
	var out []Command
	seen := map[string]bool{}
	for _, g := range r.o.Config[in.Event] {
		if names != nil && !g.matches(names...) {
			continue
		}
		for _, c := range g.Commands {
			if !seen[c.Command] {
				seen[c.Command] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// stdin is the JSON a hook reads, with Claude Code's field names.
func (r *Runner) stdin(in Input) map[string]any {
	mode := "default"
	if r.o.Mode != nil {
		mode = r.o.Mode()
	}
	m := map[string]any{
		"session_id": in.SessionID, "transcript_path": r.o.TranscriptPath, "cwd": r.o.Dir,
		"permission_mode": mode, "hook_event_name": string(in.Event),
	}
	switch in.Event {
	case PreToolUse, PostToolUse:
		m["tool_name"] = ClaudeToolName(in.Tool)
		m["tool_input"] = in.ToolInput
		if len(in.ToolInput) == 0 {
			m["tool_input"] = map[string]any{}
		}
		m["tool_use_id"] = in.ToolUseID
		if in.Event == PostToolUse {
			m["tool_response"] = in.ToolResponse
		}
	case UserPromptSubmit:
		m["prompt"] = in.Prompt
	case Stop, SubagentStop:
		m["stop_hook_active"] = in.StopHookActive
		m["last_assistant_message"] = in.LastMessage
	case SessionStart:
		m["source"] = in.Source
	case SessionEnd:
		m["reason"] = in.Reason
	case PreCompact:
		m["trigger"], m["custom_instructions"] = in.Trigger, in.CustomInstructions
	case Notification:
		m["message"], m["notification_type"] = in.Message, in.NotificationType
	}
	if in.Event == SubagentStart || in.Event == SubagentStop {
		m["agent_id"], m["agent_type"] = in.AgentID, in.AgentType
	}
	return m
}

// outcome is one command's run, read.
type outcome struct {
	status  string // event.HookOK …
	code    int
	took    time.Duration
	message string // for the user
	out     output
}

// runOne runs c with stdin in a process group of its own, under the
// sandbox, and reads how it ended. A timeout or ctx's end kills the group;
// nothing of it outlives the call.
func (r *Runner) runOne(ctx context.Context, c Command, stdin []byte, e Event) outcome {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.Command("/bin/bash", "-c", c.Command)
	cmd.Dir = r.o.Dir
	project := r.o.ProjectDir
	if c.ProjectDir != "" {
		project = c.ProjectDir
	}
	cmd.Env = append(append([]string(nil), r.o.Env...), "CLAUDE_PROJECT_DIR="+project)
	cmd.Stdin = strings.NewReader(string(stdin))
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = procgroup.CommandAttr()
	cmd.WaitDelay = time.Second // a child that left the group may hold the pipes
	reaper.Guard(cmd)
	if err := r.o.Sandbox.Start(cmd); err != nil {
		return outcome{status: event.HookError, code: -1, took: time.Since(start), message: fmt.Sprintf("could not start: %v", err)}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	timedOut := false
	select {
	case err = <-exited:
	case <-ctx.Done():
		timedOut = true
		_ = procgroup.Signal(cmd.Process.Pid, syscall.SIGKILL)
		err = <-exited
	}
	_ = procgroup.Signal(cmd.Process.Pid, syscall.SIGKILL) // what it left in its group
	o := outcome{took: time.Since(start), code: cmd.ProcessState.ExitCode()}
	if timedOut {
		o.status, o.code = event.HookTimeout, -1
		o.message = fmt.Sprintf("timed out after %s; stopped", c.Timeout.Round(time.Millisecond))
		if errors.Is(ctx.Err(), context.Canceled) { // the turn ended, not the hook's time
			o.message = "cancelled; stopped"
		}
		return o
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		o.status, o.message = event.HookError, err.Error()
		return o
	}
	return read(o, e, stdout.String(), stderr.String())
}

// read interprets how a hook ended by Claude Code's rules.
func read(o outcome, e Event, stdout, stderr string) outcome {
	switch o.code {
	case 0:
		o.status = event.HookOK
		if out, ok := parseOutput(stdout); ok {
			o.out = out
			if out.blocks() {
				o.status, o.message = event.HookBlocked, out.reason()
			} else if out.SystemMessage != "" {
				o.message = out.SystemMessage
			}
			return o
		}
		if text := strings.TrimSpace(stdout); text != "" && (e == UserPromptSubmit || e == SessionStart) {
			o.out.context = text
		}
	case 2:
		o.status = event.HookBlocked
		o.message = strings.TrimSpace(stderr)
		if o.message == "" {
			o.message = "blocked by a hook (exit status 2, nothing on stderr)"
		}
		o.out.exit2 = true
	default:
		o.status = event.HookError
		o.message = fmt.Sprintf("exit status %d", o.code)
		if line := firstLine(stderr); line != "" {
			o.message += ": " + line
		}
	}
	return o
}

func (res *Result) add(o outcome) {
	out := o.out
	if out.exit2 {
		res.block(o.message)
	}
	if out.blocks() {
		res.block(out.reason())
	}
	if d := out.decision(); d != "" && rank(d) > rank(res.Decision) {
		res.Decision, res.DecisionReason = d, out.reason()
	}
	if out.context != "" {
		res.Context = append(res.Context, clip(out.context))
	}
	if ctxText := out.Specific.AdditionalContext; ctxText != "" {
		res.Context = append(res.Context, clip(ctxText))
	}
	if out.Continue != nil && !*out.Continue {
		res.Stop = true
		if res.StopReason == "" {
			res.StopReason = out.StopReason
		}
	}
}

func (res *Result) block(reason string) {
	res.Block = true
	if reason == "" {
		return
	}
	if res.Reason != "" {
		res.Reason += "\n"
	}
	res.Reason += reason
}

// rank orders permission decisions: deny wins over ask over allow.
func rank(d string) int {
	switch d {
	case "deny":
		return 3
	case "ask":
		return 2
	case "allow":
		return 1
	}
	return 0
}

func clip(s string) string {
	if len(s) <= maxContext {
		return s
	}
	return s[:maxContext] + "\n[hook output cut at 10000 characters]"
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// capped keeps the first maxOutput bytes written to it.
type capped struct {
	mu  sync.Mutex
	buf []byte
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxOutput - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.buf)
}
