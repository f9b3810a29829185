package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/atomic-agent/atomic/internal/config"
	"github.com/atomic-agent/atomic/internal/store"
)

// habits are the flags of Claude Code and Codex that Atomic takes with
// their meaning, so their users' command lines work here.
type habits struct {
	// skipPermissions is Claude Code's --dangerously-skip-permissions
	// (--permission-mode bypassPermissions).
	skipPermissions bool
	// fullAuto is Codex's --full-auto: edits without asking, commands
	// in the workspace-write sandbox.
	fullAuto bool
	// sets are Codex's -c key=value: config file fields for this run.
	sets []string
	// systemPrompt replaces the lead's system prompt; appendSystem ends it.
	systemPrompt, appendSystem string
	// verbose is Claude Code's --verbose, which its stream-json needs.
	verbose bool
	// agents are Claude Code's --agents JSON: agent types for this run.
	agents string
	// sessionID is Claude Code's --session-id: the new session's id.
	sessionID string
	// settings is Claude Code's --settings FILE or JSON.
	settings string
	// fallbackModel answers when the model is overloaded.
	fallbackModel string
	// forkSession continues a saved session as a new one.
	forkSession bool
}

// registerHabits registers the aliases and the habits' flags.
func (c *common) registerHabits(fs *flag.FlagSet) {
	fs.Var(&c.allowed, "allowedTools", "")
	fs.Var(&c.disallowed, "disallowedTools", "")
	fs.BoolVar(&c.cont, "c", false, "")
	fs.Var(&c.resume, "r", "")
	fs.BoolVar(&c.skipPermissions, "dangerously-skip-permissions", false, "run every tool without asking (--permission-mode bypassPermissions; Claude Code's flag)")
	fs.BoolVar(&c.fullAuto, "full-auto", false, "edit files without asking and run commands in the workspace-write sandbox (--permission-mode acceptEdits --sandbox workspace-write; Codex's flag)")
	fs.Func("set", "set a config file field for this run, `KEY=VALUE` (VALUE as JSON, else a string; a.b for nested fields); also Codex's -c KEY=VALUE, while -c alone is --continue", func(v string) error {
		if _, _, ok := configOverride(v); !ok {
			return fmt.Errorf("want KEY=VALUE, got %q", v)
		}
		c.sets = append(c.sets, v)
		return nil
	})
	fs.StringVar(&c.systemPrompt, "system-prompt", "", "replace the lead's system prompt with `TEXT` (the project memory still ends it)")
	fs.StringVar(&c.appendSystem, "append-system-prompt", "", "append `TEXT` to the lead's system prompt")
	fs.StringVar(&c.agents, "agents", "", "agent types for this run as Claude Code's `JSON`: {\"name\": {\"description\": …, \"prompt\": …, \"tools\": […], \"model\": …}} (over same-named agent files)")
	fs.StringVar(&c.sessionID, "session-id", "", "save this new session under `UUID` (Claude Code's flag; not with --continue or --resume)")
	fs.StringVar(&c.settings, "settings", "", "Claude Code settings `FILE` (or JSON) for this run, over the user's and project's .claude/settings*.json (the managed policy still wins)")
	fs.StringVar(&c.fallbackModel, "fallback-model", "", "`MODEL` to send a request to when the model is overloaded (HTTP 529 or 503 after the retries), and the later ones (Claude Code's flag)")
	fs.BoolVar(&c.forkSession, "fork-session", false, "with --continue or --resume: continue a copy of the session under a new id (--session-id names it), leaving the original as it was")
	fs.BoolVar(&c.verbose, "verbose", false, "accepted for Claude Code's command lines (its stream-json needs it); Atomic's output formats always carry every event")
}

// applyHabits turns the habits' flags into Atomic's settings; a habit
// that contradicts a flag given with it is an error.
func (c *common) applyHabits(fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if c.sessionID != "" {
		if !isUUID(c.sessionID) {
			return fmt.Errorf("--session-id %q: want a UUID like 123e4567-e89b-12d3-a456-426614174000", c.sessionID)
		}
		if (c.cont || c.resume.set) && !c.forkSession {
			return errors.New("--session-id names a new session: with --continue or --resume it needs --fork-session")
		}
		if c.noPersistence {
			return errors.New("--session-id names the session to save: it cannot be given with --no-session-persistence")
		}
	}
	if c.forkSession && !c.cont && !c.resume.set {
		return errors.New("--fork-session copies the session --continue or --resume names: give one")
	}
	if c.skipPermissions && c.fullAuto {
		return errors.New("--dangerously-skip-permissions and --full-auto: give one of them")
	}
	mode := ""
	switch {
	case c.skipPermissions:
		mode = "bypassPermissions"
	case c.fullAuto:
		mode = "acceptEdits"
		if given["sandbox"] && c.sandbox != "workspace-write" {
			return fmt.Errorf("--full-auto runs commands in the workspace-write sandbox: drop --sandbox %s", c.sandbox)
		}
		c.sandbox = "workspace-write"
	}
	if mode != "" {
		flagName := dashes("dangerously-skip-permissions")
		if c.fullAuto {
			flagName = "--full-auto"
		}
		if given["permission-mode"] && c.permissionMode != mode {
			return fmt.Errorf("%s is --permission-mode %s: drop --permission-mode %s", flagName, mode, c.permissionMode)
		}
		c.permissionMode = mode
	}
	return nil
}

// configOverride splits Codex's KEY=VALUE: KEY is a field name (letters,
// digits, _ and . for nesting) so a prompt with "=" in it is no override.
func configOverride(s string) (key, value string, ok bool) {
	key, value, ok = strings.Cut(s, "=")
	if !ok || key == "" {
		return "", "", false
	}
	for _, r := range key {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.') {
			return "", "", false
		}
	}
	return key, value, true
}

// withOverrides is the config file at path (data, nil when there is
// none) with the -c KEY=VALUE fields set, checked as a file is.
func withOverrides(path string, data []byte, sets []string) (config.File, error) {
	obj := map[string]any{}
	if len(strings.TrimSpace(string(data))) > 0 {
		if err := json.Unmarshal(data, &obj); err != nil {
			return config.ParseFile(path, data) // says what is wrong with the file
		}
	}
	for _, s := range sets {
		key, value, _ := configOverride(s)
		var v any
		if err := json.Unmarshal([]byte(value), &v); err != nil {
			v = value // a bare word is a string, as in Codex
		}
		parts := strings.Split(key, ".")
		m := obj
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[parts[len(parts)-1]] = v
	}
	merged, err := json.Marshal(obj)
	if err != nil {
		return config.File{}, fmt.Errorf("-c KEY=VALUE: %w", err)
	}
	return config.ParseFile("-c KEY=VALUE over "+path, merged)
}

// readOptional reads a config file that may be missing.
func readOptional(path string, optional bool) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil && !(optional && errors.Is(err, fs.ErrNotExist)) {
		return nil, fmt.Errorf("config file: %w", err)
	}
	return data, nil
}

// habitArgs rewrites the habits' spellings the flag package cannot take
// as they are: -c KEY=VALUE (Codex) is --set KEY=VALUE, while -c alone is
// --continue (Claude Code); -r or --resume without an id (last, or before
// another flag) is --resume= (the chat UI's picker); -p or --print before
// another flag or last is --print (Claude Code's print mode, the prompt
// being the arguments or stdin).
func habitArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		next, hasNext := "", i+1 < len(args)
		if hasNext {
			next = args[i+1]
		}
		flagNext := !hasNext || strings.HasPrefix(next, "-")
		switch a {
		case "-c", "--c":
			if _, _, ok := configOverride(next); hasNext && ok && !strings.HasPrefix(next, "-") {
				out = append(out, "--set", next)
				i++
				continue
			}
			out = append(out, "--continue")
			continue
		case "-r", "--r", "-resume", "--resume":
			if flagNext {
				out = append(out, "--resume=")
				continue
			}
		case "-p", "--p", "-print", "--print":
			if flagNext || a == "-print" || a == "--print" {
				out = append(out, "--print")
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// wantsHeadless reports whether the chat UI's command line is Claude
// Code's print mode (-p, --print, --prompt): a headless run.
func wantsHeadless(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "p" || name == "print" || name == "prompt") {
			return true
		}
	}
	return false
}

// resumeArgs are Codex's `atomic resume [ID] [--last]` as the chat UI's
// flags: --resume ID, the picker, or --continue.
func resumeArgs(args []string) []string {
	out := []string{"--resume="}
	for i, a := range args {
		switch {
		case a == "--last" || a == "-last":
			out[0] = "--continue"
		case !strings.HasPrefix(a, "-") && out[0] == "--resume=":
			out[0] = "--resume=" + a
		default:
			return append(out, args[i:]...)
		}
	}
	return out
}

// isUUID reports whether s is a UUID in its usual text form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
				return false
			}
		}
	}
	return true
}

// sessionIDFree fails when --session-id names a session already saved.
func (c *common) sessionIDFree(ctx context.Context, ios IOStreams) error {
	if c.sessionID == "" {
		return nil
	}
	st, err := openSessions(ctx, ios)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing saved yet
	}
	if err != nil {
		return err
	}
	defer st.Close()
	sess, err := st.Session(ctx, c.sessionID)
	switch {
	case errors.Is(err, store.ErrUnknownSession):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("--session-id %s: a session with this id was saved already (in %s): resume it with --resume %s", sess.ID, sess.Dir, sess.ID)
}
