// Package hooks runs Claude Code's hooks: the user's commands that settings
// files (and agent files' front matter) attach to the agent's events, with
// Claude Code's contract. A hook gets the event as JSON on stdin; exit 0 is
// success (for UserPromptSubmit and SessionStart its stdout is context for
// the model), exit 2 blocks with stderr fed back, any other status is a
// non-blocking error; a JSON object on stdout may decide instead
// (decision, hookSpecificOutput.permissionDecision, additionalContext,
// continue, stopReason, systemMessage, suppressOutput). The hooks of one
// event run in parallel, each bounded by its timeout (60 s unless set).
package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Event is a hook event, by Claude Code's name.
type Event string

// The events Atomic runs hooks for.
const (
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	UserPromptSubmit Event = "UserPromptSubmit"
	Stop             Event = "Stop"
	SubagentStart    Event = "SubagentStart"
	SubagentStop     Event = "SubagentStop"
	SessionStart     Event = "SessionStart"
	SessionEnd       Event = "SessionEnd"
	Notification     Event = "Notification"
	PreCompact       Event = "PreCompact"
)

// known reports whether e is an event Atomic runs (a switch: no map built
// at init).
func known(e Event) bool {
	switch e {
	case PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStart, SubagentStop,
		SessionStart, SessionEnd, Notification, PreCompact:
		return true
	}
	return false
}

// DefaultTimeout bounds a hook that sets no timeout, as in Claude Code.
const DefaultTimeout = 60 * time.Second

// Command is one hook command.
type Command struct {
	Command string
	Timeout time.Duration
	// Source is the file that declared it (a settings file, an agent
	// file), for the hook.run event and warnings.
	Source string
	// ProjectDir is this command's CLAUDE_PROJECT_DIR ("": the run's):
	// the folder holding the project settings file that declared it, so a
	// repository root's "$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh" is found
	// when Atomic runs in a subfolder.
	ProjectDir string
}

// Group is one matcher with its commands.
type Group struct {
	Matcher  string
	Commands []Command
	re       *regexp.Regexp // Matcher compiled by Parse (nil: everything)
	compiled bool
}

// Config is the hooks of one or more files, by event.
type Config map[Event][]Group

// Merge returns c with the groups of o after its own; neither changes.
func (c Config) Merge(o Config) Config {
	if len(o) == 0 {
		return c
	}
	out := make(Config, len(c)+len(o))
	for e, gs := range c {
		out[e] = append([]Group(nil), gs...)
	}
	for e, gs := range o {
		out[e] = append(out[e], gs...)
	}
	return out
}

// Count is how many commands c holds.
func (c Config) Count() int {
	n := 0
	for _, gs := range c {
		for _, g := range gs {
			n += len(g.Commands)
		}
	}
	return n
}

// Parse reads the value of a settings file's "hooks" key:
//
//	{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}
//
// What Atomic cannot run (an unknown event, a hook type other than
// command, a matcher that is not a valid regular expression) is skipped
// and named in warnings; a value of the wrong shape is an error.
func Parse(raw json.RawMessage, source string) (Config, []string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil, nil
	}
	var byEvent map[string][]struct {
		Matcher *string           `json:"matcher"`
		Hooks   []json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &byEvent); err != nil {
		return nil, nil, fmt.Errorf(`hooks: expected an object like {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}]}: %w`, err)
	}
	cfg := Config{}
	var warnings, unknown []string
	for _, name := range sortedKeys(byEvent) {
		e := Event(name)
		if !known(e) {
			unknown = append(unknown, name)
			continue
		}
		for _, g := range byEvent[name] {
			grp := Group{}
			if g.Matcher != nil {
				grp.Matcher = *g.Matcher
			}
			re, err := compile(grp.Matcher)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("hooks.%s: matcher %q is not a valid regular expression (%v); skipped", name, grp.Matcher, err))
				continue
			}
			grp.re, grp.compiled = re, true
			for _, h := range g.Hooks {
				c, why := parseCommand(h, source)
				if why != "" {
					warnings = append(warnings, fmt.Sprintf("hooks.%s: %s; skipped", name, why))
					continue
				}
				grp.Commands = append(grp.Commands, c)
			}
			if len(grp.Commands) > 0 {
				cfg[e] = append(cfg[e], grp)
			}
		}
	}
	if len(unknown) > 0 {
		warnings = append(warnings, fmt.Sprintf("hooks: Atomic does not run the events %s; ignored", strings.Join(unknown, ", ")))
	}
	return cfg, warnings, nil
}

// FromValue reads hooks given as a decoded YAML or JSON value (an agent
// file's front matter "hooks:" key).
func FromValue(v any, source string) (Config, []string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, nil, fmt.Errorf("hooks: %w", err)
	}
	return Parse(raw, source)
}

func parseCommand(raw json.RawMessage, source string) (Command, string) {
	var h struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Timeout *float64 `json:"timeout"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return Command{}, `a hook must be an object like {"type": "command", "command": "…"}`
	}
	if h.Type != "command" {
		return Command{}, fmt.Sprintf("hook type %q is not one Atomic runs (command)", h.Type)
	}
	if strings.TrimSpace(h.Command) == "" {
		return Command{}, "a command hook has no command"
	}
	c := Command{Command: h.Command, Timeout: DefaultTimeout, Source: source}
	if h.Timeout != nil && *h.Timeout > 0 {
		c.Timeout = time.Duration(*h.Timeout * float64(time.Second))
	}
	return c, ""
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
