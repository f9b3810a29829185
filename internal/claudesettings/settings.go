// Package claudesettings reads the permission rules, permission mode,
// extra folders and environment of Claude Code's settings files, so that a
// Claude Code user's rules hold in Atomic too: a deny of Read(./.env) stops
// the model reading .env whatever the mode.
//
// Files, highest precedence first: the managed policy
// (/etc/claude-code/managed-settings.json on Linux), then Atomic's own
// flags and config file (Claude Code's "command line" level), then
// .claude/settings.local.json and .claude/settings.json of every folder
// from the working directory up to the repository root (nearest first),
// and ~/.claude/settings.json. As in Claude Code, the allow,
// deny and ask lists and additionalDirectories of every file add up;
// defaultMode and each env variable come from the highest file setting
// them. The files are read once, when a session starts.
package claudesettings

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/dotdirs"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/permission"
)

// Scope is where a settings file sits.
type Scope string

// Scopes, lowest precedence first.
const (
	User    Scope = "user"
	Project Scope = "project"
	Local   Scope = "local"
	// Flag is the file (or JSON) given with --settings, as Claude Code's:
	// over every file but the managed policy.
	Flag    Scope = "flag"
	Managed Scope = "managed"
)

// fromProject reports whether files of scope s live in the repository,
// where the model's own edits (or a cloned repository) can put them.
func (s Scope) fromProject() bool { return s == Project || s == Local }

// Places are where the settings files are looked for.
type Places struct {
	// Dir is the working directory: its .claude, and that of every
	// folder up to the repository root, hold the project's files.
	Dir string
	// Home is the user's home folder ("": no user file).
	Home string
	// Managed is the managed policy file ("": none).
	Managed string
	// TrustProject applies what the project's files loosen (allow rules,
	// additionalDirectories, defaultMode acceptEdits, env). Without it
	// only their deny and ask rules apply: a cloned repository, or a
	// command of the model, writes those files, and what they loosen
	// (additionalDirectories ["~"] with allow WebFetch) would hand the
	// user's files to the model with no flag given.
	TrustProject bool
	// Flag is --settings: a file, or JSON itself ("": none). Unlike the
	// others it must exist.
	Flag string
}

// ManagedPath is where Claude Code's managed policy lives on goos.
func ManagedPath(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/managed-settings.json"
	case "windows":
		return `C:\Program Files\ClaudeCode\managed-settings.json`
	}
	return "/etc/claude-code/managed-settings.json"
}

// Settings is what the files say, merged.
type Settings struct {
	// Rules are every supported allow, deny and ask rule, from the
	// highest-precedence file down.
	Rules []permission.ClaudeRule
	// Mode is the defaultMode of the highest file setting one that
	// applies, ModeSource that file; "" when none does.
	Mode, ModeSource string
	modeScope        Scope
	// DisableBypass is set when a file disables bypassPermissions;
	// DisableSource names it.
	DisableBypass bool
	DisableSource string
	// Dirs are the additionalDirectories, absolute.
	Dirs []string
	// ProcessEnv is the env of the user and managed files: it applies to
	// Atomic's own process (the provider, MCP servers, every command).
	ProcessEnv map[string]string
	// CommandEnv is the env of the project's files: only the commands the
	// model runs get it (see README: a repository cannot point Atomic's
	// own process at another API server or preload a library into it).
	CommandEnv map[string]string
	// Model is the model of the highest file naming one, as written
	// (a model id or one of Claude Code's aliases); ModelSource is that
	// file. The CLI uses it when neither --model nor the config file
	// names a model and the provider is Anthropic.
	Model, ModelSource string
	// Warnings are said once at start: unsupported keys, skipped values,
	// and what the project's files loosen.
	Warnings []string
	// Hooks are the hooks of every file (the project's only when trusted:
	// they are programs the repository names), highest precedence first.
	Hooks hooks.Config
	// Files are the files read, highest precedence first.
	Files []string
	// unsupported are the keys each file has that Atomic ignores, said
	// in one warning once every file is read.
	unsupported []string
	// Contents are the bytes of every file Load looked for, by path (nil:
	// it does not exist), so that what else a run reads of the same files
	// (the MCP approval keys) reads what Load did, without reading them
	// again (Content).
	Contents map[string][]byte
}

// Content is the content of the settings file at path as Load read it;
// known is false for a path Load did not look for (or s nil).
func (s *Settings) Content(path string) (data []byte, exists, known bool) {
	if s == nil {
		return nil, false, false
	}
	data, known = s.Contents[path]
	return data, known && data != nil, known
}

// Load reads the settings files of p. A file that exists but cannot be
// read or parsed, or holds a rule that does not parse, is an error naming
// it: the run must not go on without a deny rule the user wrote.
func Load(p Places) (*Settings, error) {
	type place struct {
		path    string
		scope   Scope
		project string // what /path in a rule is relative to
	}
	var places []place
	if p.Managed != "" {
		places = append(places, place{p.Managed, Managed, filepath.Dir(p.Managed)})
	}
	if p.Flag != "" {
		places = append(places, place{p.Flag, Flag, p.Dir})
	}
	// Every folder from the working directory up to the repository root,
	// nearest first. Claude Code reads the working directory's only, so
	// "cd app && claude" drops the root's deny rules and hooks; Atomic
	// fails closed and applies every level's.
	for _, d := range dotdirs.Project(p.Dir) {
		places = append(places, place{filepath.Join(d, ".claude", "settings.local.json"), Local, d})
		if p.Home == "" || !samePath(d, p.Home) { // ~/.claude/settings.json is the user's, read below
			places = append(places, place{filepath.Join(d, ".claude", "settings.json"), Project, d})
		}
	}
	if p.Home != "" {
		places = append(places, place{filepath.Join(p.Home, ".claude", "settings.json"), User, p.Home})
	}
	s := &Settings{ProcessEnv: map[string]string{}, CommandEnv: map[string]string{}, Contents: map[string][]byte{}}
	for _, pl := range places {
		f, ok, err := readFile(pl.path, pl.scope)
		if err != nil {
			return nil, err
		}
		if !ok && pl.scope == Flag {
			return nil, fmt.Errorf("--settings %s: no such file", pl.path)
		}
		if pl.scope != Flag { // a --settings value may be JSON, not a path
			s.Contents[pl.path] = nil
			if ok {
				s.Contents[pl.path] = append([]byte{}, f.data...) // exists, maybe empty
			}
		}
		if !ok {
			continue
		}
		s.Files = append(s.Files, f.path)
		if err := s.add(f, permission.RuleDirs{Cwd: p.Dir, Home: p.Home, Project: pl.project}, p.TrustProject); err != nil {
			return nil, err
		}
	}
	if len(s.unsupported) > 0 {
		s.Warnings = append(s.Warnings, "Claude Code settings: Atomic does not support "+strings.Join(s.unsupported, "; ")+"; ignored")
	}
	return s, nil
}

func samePath(a, b string) bool {
	ca, cb := filepath.Clean(a), filepath.Clean(b)
	if ca == cb {
		return true
	}
	ra, errA := filepath.EvalSymlinks(ca)
	rb, errB := filepath.EvalSymlinks(cb)
	return errA == nil && errB == nil && ra == rb
}

// add merges f, which has lower precedence than every file added before.
// What a project file loosens is applied only when trustProject is set;
// otherwise it is named in one warning.
func (s *Settings) add(f file, dirs permission.RuleDirs, trustProject bool) error {
	name := f.path
	held := f.scope.fromProject() && !trustProject
	var loosened []string
	for _, l := range []struct {
		kind  permission.RuleKind
		rules []string
	}{{permission.RuleDeny, f.deny}, {permission.RuleAsk, f.ask}, {permission.RuleAllow, f.allow}} {
		var skipped []string
		for _, text := range l.rules {
			r, err := permission.ParseClaudeRule(l.kind, text, name, dirs)
			if err != nil {
				if l.kind == permission.RuleAllow { // an allow lost only asks more
					s.Warnings = append(s.Warnings, fmt.Sprintf("Claude Code settings %s: permissions.allow: %v; skipped", name, err))
					continue
				}
				return fmt.Errorf("Claude Code settings %s: permissions.%s: %w", name, l.kind, err)
			}
			if !r.Supported() {
				skipped = append(skipped, text)
				continue
			}
			if why := r.Unapplied(); why != "" {
				s.Warnings = append(s.Warnings, fmt.Sprintf("Claude Code settings %s: permissions.allow %q: %s", name, text, why))
				continue
			}
			if l.kind == permission.RuleAllow && f.scope.fromProject() {
				loosened = append(loosened, "allow "+text)
				if held {
					continue
				}
			}
			s.Rules = append(s.Rules, r)
		}
		if len(skipped) > 0 && l.kind == permission.RuleAllow {
			s.Warnings = append(s.Warnings, fmt.Sprintf("Claude Code settings %s: permissions.allow names tools Atomic does not have: %s; ignored", name, strings.Join(skipped, ", ")))
		}
	}
	for _, d := range f.dirs {
		abs := expandDir(d, dirs)
		if abs == "" {
			s.Warnings = append(s.Warnings, fmt.Sprintf("Claude Code settings %s: permissions.additionalDirectories: %q cannot be resolved; skipped", name, d))
			continue
		}
		if f.scope.fromProject() {
			loosened = append(loosened, "additionalDirectories "+abs)
			if held {
				continue
			}
		}
		if !slices.Contains(s.Dirs, abs) {
			s.Dirs = append(s.Dirs, abs)
		}
	}
	if f.disableBypass && !s.DisableBypass {
		s.DisableBypass, s.DisableSource = true, name
	}
	s.setMode(f, &loosened, held)
	if f.model != "" && s.Model == "" {
		s.Model, s.ModelSource = f.model, name
	}
	for _, k := range sortedKeys(f.env) {
		dst := s.ProcessEnv
		if f.scope.fromProject() {
			dst = s.CommandEnv
			loosened = append(loosened, "env "+k+" (commands only)")
			if held {
				continue
			}
		}
		if _, set := dst[k]; !set {
			dst[k] = f.env[k]
		}
	}
	if err := s.addHooks(f, held, dirs.Project); err != nil {
		return err
	}
	if len(f.unsupported) > 0 {
		s.unsupported = append(s.unsupported, quoteAll(f.unsupported)+" ("+name+")")
	}
	for _, p := range f.problems {
		s.Warnings = append(s.Warnings, fmt.Sprintf("Claude Code settings %s: %s", name, p))
	}
	switch {
	case len(loosened) > 0 && held:
		s.Warnings = append(s.Warnings, fmt.Sprintf("Claude Code settings %s (in the project, where a command or an edit can write it) would loosen the rules: %s; not applied (its deny and ask rules are): give --trust-project-settings to apply them, or put them in ~/.claude/settings.json",
			name, strings.Join(loosened, "; ")))
	case len(loosened) > 0:
		s.Warnings = append(s.Warnings, fmt.Sprintf("Claude Code settings %s (in the project, where a command or an edit can write it) loosens the rules: %s",
			name, strings.Join(loosened, "; ")))
	}
	return nil
}

// addHooks merges f's hooks. A project file's run only when the project
// is trusted: a cloned repository, or a command of the model, writes that
// file, and its hooks would run as the user on the next event (Claude
// Code asks "do you trust this folder?" first). Held hooks are named in
// one warning. A project file's hooks get its folder as
// CLAUDE_PROJECT_DIR.
func (s *Settings) addHooks(f file, held bool, project string) error {
	cfg, warnings, err := hooks.Parse(f.hooks, f.path)
	if err != nil {
		return fmt.Errorf("Claude Code settings %s: %w", f.path, err)
	}
	if f.scope.fromProject() { // a root's hooks name their scripts from the root
		for _, gs := range cfg {
			for i := range gs {
				for j := range gs[i].Commands {
					gs[i].Commands[j].ProjectDir = project
				}
			}
		}
	}
	for _, w := range warnings {
		s.Warnings = append(s.Warnings, fmt.Sprintf("Claude Code settings %s: %s", f.path, w))
	}
	if n := cfg.Count(); n > 0 && held {
		s.Warnings = append(s.Warnings, fmt.Sprintf("Claude Code settings %s (in the project) has %d hook command(s), which run as you: not run; give --trust-project-settings to run them, or put them in ~/.claude/settings.json", f.path, n))
		return nil
	}
	s.Hooks = s.Hooks.Merge(cfg)
	return nil
}

// setMode takes f's defaultMode unless a higher file set one. A project
// file cannot start a session in bypassPermissions (as in Claude Code);
// dontAsk is default mode with every prompt denied.
func (s *Settings) setMode(f file, loosened *[]string, held bool) {
	m := f.defaultMode
	if m == "" || s.Mode != "" {
		return
	}
	switch m {
	case "default", "acceptEdits", "plan", "dontAsk":
	case "bypassPermissions":
		if f.scope.fromProject() {
			s.Warnings = append(s.Warnings, fmt.Sprintf("Claude Code settings %s: permissions.defaultMode bypassPermissions is ignored in a project's settings (a repository must not turn every check off); use --permission-mode bypassPermissions or ~/.claude/settings.json", f.path))
			return
		}
	default:
		s.Warnings = append(s.Warnings, fmt.Sprintf("Claude Code settings %s: permissions.defaultMode %q is not one Atomic has (default, acceptEdits, plan, bypassPermissions, dontAsk); ignored", f.path, m))
		return
	}
	if m == "acceptEdits" && f.scope.fromProject() {
		*loosened = append(*loosened, "defaultMode acceptEdits")
		if held {
			return
		}
	}
	s.Mode, s.ModeSource, s.modeScope = m, f.path, f.scope
}

// expandDir makes an additionalDirectories entry absolute: ~/ is the
// home folder, a relative path is below the working directory.
func expandDir(d string, dirs permission.RuleDirs) string {
	d = strings.TrimSpace(d)
	switch {
	case d == "":
		return ""
	case d == "~" || strings.HasPrefix(d, "~/"):
		if dirs.Home == "" {
			return ""
		}
		return filepath.Join(dirs.Home, strings.TrimPrefix(d, "~"))
	case filepath.IsAbs(d):
		return filepath.Clean(d)
	case dirs.Cwd == "":
		return ""
	}
	return filepath.Join(dirs.Cwd, d)
}

func quoteAll(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, ", ")
}

// ResolveMode picks the session's permission mode: the managed file's
// defaultMode, else flag (--permission-mode), else config (Atomic's
// config file), else the project's and user's files. dontAsk is default
// mode where nothing is asked (noPrompts). A file disabling
// bypassPermissions makes that mode an error.
func (s *Settings) ResolveMode(flag, config string) (mode string, noPrompts bool, err error) {
	switch {
	case s.Mode != "" && s.modeScope == Managed:
		mode = s.Mode
	case flag != "":
		mode = flag
	case config != "":
		mode = config
	default:
		mode = s.Mode
	}
	if mode == "dontAsk" {
		mode, noPrompts = "default", true
	}
	if mode == "bypassPermissions" && s.DisableBypass {
		return "", false, fmt.Errorf("permission mode bypassPermissions is disabled by permissions.disableBypassPermissionsMode in %s", s.DisableSource)
	}
	return mode, noPrompts, nil
}
