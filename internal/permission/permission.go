// Package permission is the gate every tool call passes. It decides from the
// permission mode and the allow/deny patterns, and asks a human only through
// an Asker; with no Asker (headless) a call that would need a prompt is denied
// with a message naming the flag that would allow it. Nothing ever blocks on
// a prompt nobody can see.
package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Mode is a permission mode, named as in Claude Code.
type Mode string

// Modes.
const (
	Default           Mode = "default"           // ask for edits and commands
	AcceptEdits       Mode = "acceptEdits"       // edits allowed, ask for commands
	BypassPermissions Mode = "bypassPermissions" // everything allowed (deny patterns still apply)
	Plan              Mode = "plan"              // read-only: edits and commands denied
)

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Default, AcceptEdits, BypassPermissions, Plan:
		return m, nil
	case "":
		return Default, nil
	}
	return "", fmt.Errorf("unknown permission mode %q (want default, acceptEdits, bypassPermissions or plan)", s)
}

// Request is one tool call asking to run.
type Request struct {
	// ID is unique per request; approval UIs answer by it.
	ID        string
	AgentID   string
	AgentName string // "lead", "explore-1", a teammate's name
	// Path is the chain from the lead to the agent, "lead › reviewer-1 ›
	// explore-3" (Gate.Path), "" for the lead: what a prompt names.
	Path string
	// Backend is the external CLI the asking agent runs in ("" for
	// Atomic's own loop), named beside the agent in prompts and denials.
	Backend string
	Tool    string
	Kind    tools.Kind
	// Subject is the argument that matters (command, path).
	Subject string
	Input   json.RawMessage
	// Diff previews an edit, when the tool can compute one.
	Diff string
	// SessionRules are the rules "allow for this session" adds, as
	// --allowed-tools spells them (bash(go test:*), write); the gate fills
	// them in before asking, so the prompt can show them. Empty when the
	// call cannot be remembered (a command whose name is a variable):
	// then "allow for this session" allows this call only.
	SessionRules []string
}

// Who names the asking agent in a prompt: its path when it is nested
// below another sub-agent ("lead › reviewer-1 › explore-3"), else its
// name ("explore-1"; the lead's own requests name "lead").
func (r Request) Who() string {
	if strings.Count(r.Path, " › ") > 1 {
		return r.Path
	}
	return r.AgentName
}

// Decision answers a Request.
type Decision struct {
	Allow bool
	// Reason is shown to the model when denied.
	Reason string
}

// Answer is a human's reply to a prompt.
type Answer int

// Answers.
const (
	Deny Answer = iota
	AllowOnce
	AllowSession // allow this tool (and subject pattern) for the rest of the session
	// DenySession denies, and denies without asking for the rest of the
	// session what AllowSession would have allowed (for bash: this exact
	// command).
	DenySession
)

// Asker puts a request in front of a human and waits for the answer (or ctx).
type Asker interface {
	Ask(ctx context.Context, req Request) (Answer, error)
}

// Gate decides tool calls. Safe for concurrent use by every agent of a run.
type Gate struct {
	mode       atomic.Value // Mode; set by SetMode while agents run
	root       string       // where relative paths in subjects and rules resolve; "" is the working directory
	allowed    []Pattern
	disallowed []Pattern
	// allowedFrom and disallowedFrom name where each flag pattern came
	// from (Options); /permissions lists them.
	allowedFrom, disallowedFrom []string
	asker                       Asker // nil: headless
	// claude are the rules of Claude Code settings files (claude_gate.go).
	claude []ClaudeRule

	// pathOf names an agent's place in the tree (SetPathOf); nil: none.
	pathOf atomic.Pointer[func(agentID string) string]

	mu      sync.Mutex
	session []Pattern // allowed for this session by a human
	refused []Pattern // denied for this session by a human
	// denied are deny rules added for this session (/permissions deny),
	// applied as --disallowed-tools are (session_rules.go).
	denied []Pattern
	// grants are allowed per agent until Revoke (a skill's allowed-tools
	// while that agent's turn lasts: grant.go).
	grants map[string][]Pattern
}

// Options configure a Gate.
type Options struct {
	Mode       Mode
	Allowed    []string // e.g. "read", "bash(go test:*)"
	Disallowed []string
	// AllowedFrom and DisallowedFrom name where each of Allowed and
	// Disallowed came from (a config file); missing ones are the flags.
	AllowedFrom, DisallowedFrom []string
	Asker                       Asker
	// Root is the workspace root: relative paths of file tools and path
	// rules resolve against it. Empty means the working directory.
	Root string
	// Settings are the rules of Claude Code settings files: deny wins
	// over everything, ask always asks (see claude_gate.go).
	Settings []ClaudeRule
}

// NewGate checks the patterns and returns a Gate.
func NewGate(o Options) (*Gate, error) {
	mode, err := ParseMode(string(o.Mode))
	if err != nil {
		return nil, err
	}
	g := &Gate{asker: o.Asker, root: o.Root, allowedFrom: o.AllowedFrom, disallowedFrom: o.DisallowedFrom}
	g.mode.Store(mode)
	for _, s := range o.Allowed {
		p, err := ParsePattern(s)
		if err != nil {
			return nil, fmt.Errorf("--allowed-tools: %w", err)
		}
		g.allowed = append(g.allowed, p)
	}
	for _, s := range o.Disallowed {
		p, err := ParsePattern(s)
		if err != nil {
			return nil, fmt.Errorf("--disallowed-tools: %w", err)
		}
		g.disallowed = append(g.disallowed, p)
	}
	g.claude = o.Settings
	bashAllows, _ := allowPatterns(o.Settings)
	g.allowed = append(g.allowed, bashAllows...)
	return g, nil
}

// Mode reports the gate's mode.
func (g *Gate) Mode() Mode { return g.mode.Load().(Mode) }

// SetMode changes the mode for the calls decided from now on (an ACP
// client's session/set_mode, the TUI's mode switch).
func (g *Gate) SetMode(m Mode) { g.mode.Store(m) }

// Decide returns whether req may run, asking the Asker when the mode and
// patterns leave it open. It returns when ctx ends, denying.
func (g *Gate) Decide(ctx context.Context, req Request) Decision {
	if d, decided := g.Check(req); decided {
		return d
	}
	return g.Ask(ctx, req)
}

// Check decides req from the mode, the patterns and this session's
// allowances alone. decided is false when a human must answer: then call
// Ask (callers report the approval around it). A settings deny rule wins
// over everything; a settings ask rule makes what would run be asked.
func (g *Gate) Check(req Request) (d Decision, decided bool) {
	line := &lineCommands{}
	if d, denied := g.settingsDeny(req, line); denied {
		return d, true
	}
	d, decided = g.check(req)
	if (d.Allow || !decided) && g.settingsAsk(req, line) != "" {
		return Decision{}, false
	}
	return d, decided
}

func (g *Gate) check(req Request) (d Decision, decided bool) {
	g.mu.Lock()
	refused := slices.Clone(g.refused)
	g.mu.Unlock()
	for _, p := range refused {
		if g.match(p, req, true) {
			return Decision{Reason: fmt.Sprintf("permission denied: %s was declined for this session (not asked again)", g.describe(req))}, true
		}
	}
	if req.Tool == "bash" {
		v := g.bash(req)
		return v.decision, v.decided
	}
	for _, p := range g.denyRules() {
		if g.match(p, req, true) {
			return Decision{Reason: fmt.Sprintf("permission denied: %s is disallowed by %s %q", g.describe(req), g.denySource(p), p.String())}, true
		}
	}
	if req.Kind == tools.ReadOnly || req.Kind == tools.Orchestrate {
		return Decision{Allow: true}, true
	}
	for _, p := range g.allowedFor(req) {
		if g.match(p, req, false) {
			return Decision{Allow: true}, true
		}
	}
	if g.settingsAllows(req) {
		return Decision{Allow: true}, true
	}
	switch g.Mode() {
	case BypassPermissions:
		return Decision{Allow: true}, true
	case Plan:
		return g.planDenial(req), true
	case AcceptEdits:
		if req.Kind == tools.Edit {
			return Decision{Allow: true}, true
		}
	}
	for _, p := range g.sessionRules() {
		if g.match(p, req, false) {
			return Decision{Allow: true}, true
		}
	}
	return Decision{}, false
}

// match reports whether p covers req; file paths are matched as resolved
// (see matchPath).
func (g *Gate) match(p Pattern, req Request, deny bool) bool {
	if !p.MatchTool(req.Tool) {
		return false
	}
	if pathTools(strings.ToLower(req.Tool)) {
		return g.matchPath(p, req.Subject, deny)
	}
	if strings.EqualFold(req.Tool, webFetchTool) {
		if m, handled := matchDomain(p, req.Subject); handled {
			return m
		}
	}
	return p.Match(req.Tool, req.Subject)
}

func (g *Gate) sessionRules() []Pattern {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.session)
}

func (g *Gate) planDenial(req Request) Decision {
	return Decision{Reason: fmt.Sprintf("permission denied: %s is not allowed in plan mode (read-only); leave plan mode to make changes", g.describe(req))}
}

// SetPathOf tells the gate how to name an agent's place in the tree
// (the run's reducer): prompts then carry the path (Request.Path).
func (g *Gate) SetPathOf(f func(agentID string) string) { g.pathOf.Store(&f) }

// Path is agent id's place in the tree, "lead › reviewer-1 › explore-3";
// "" for the lead, or when the gate was told no tree.
func (g *Gate) Path(agentID string) string {
	f := g.pathOf.Load()
	if f == nil || agentID == "" || agentID == event.LeadID {
		return ""
	}
	return (*f)(agentID)
}

// Ask puts req to the human through the Asker, with the rules "allow for
// this session" would add; with no Asker (headless) it denies with a
// message naming the flags that would allow the call. It returns when ctx
// ends, denying: nothing waits on a prompt nobody sees.
func (g *Gate) Ask(ctx context.Context, req Request) Decision {
	if g.asker == nil {
		return Decision{Reason: g.headlessDenial(req)}
	}
	rules := g.proposedRules(req)
	req.SessionRules = ruleStrings(rules)
	if req.Path == "" {
		req.Path = g.Path(req.AgentID)
	}
	ans, err := g.asker.Ask(ctx, req)
	if err != nil {
		return Decision{Reason: fmt.Sprintf("permission denied: %s: no answer (%v)", g.describe(req), err)}
	}
	switch ans {
	case AllowOnce:
		return Decision{Allow: true}
	case AllowSession:
		g.mu.Lock()
		g.session = append(g.session, rules...)
		g.mu.Unlock()
		return Decision{Allow: true}
	case DenySession:
		refuse := rules
		if req.Tool == "bash" { // the command itself: its parts may run in others
			refuse = []Pattern{{Tool: "bash", HasArg: true, Prefix: req.Subject}}
		}
		g.mu.Lock()
		g.refused = append(g.refused, refuse...)
		g.mu.Unlock()
		return Decision{Reason: fmt.Sprintf("permission denied: the user declined %s, for the rest of this session", g.describe(req))}
	}
	return Decision{Reason: fmt.Sprintf("permission denied: the user declined %s", g.describe(req))}
}

// SessionRules are the rules "allow for this session" would add for req,
// as the prompt shows them (bash(go test:*)).
func (g *Gate) SessionRules(req Request) []string { return ruleStrings(g.proposedRules(req)) }

func ruleStrings(rules []Pattern) []string {
	var out []string
	for _, p := range rules {
		out = append(out, p.String())
	}
	return out
}

func describe(req Request) string {
	who := ""
	if name := req.Who(); req.AgentName != "" && req.AgentName != event.LeadID {
		who = " (requested by " + name + ")"
		if req.Backend != "" {
			who = " (requested by " + name + " in " + req.Backend + ")"
		}
	}
	if req.Subject != "" {
		return fmt.Sprintf("%s %q%s", req.Tool, req.Subject, who)
	}
	return req.Tool + who
}

// describe is describe(req) naming a nested agent by its path, looked up
// only now: a denial is rare, the lookup reads the run's tree.
func (g *Gate) describe(req Request) string {
	if req.Path == "" {
		req.Path = g.Path(req.AgentID)
	}
	return describe(req)
}

// headlessDenial names the flags that would allow the call.
func (g *Gate) headlessDenial(req Request) string {
	if why := g.settingsAsk(req, &lineCommands{}); why != "" {
		return why
	}
	if req.Tool == "bash" {
		return g.bash(req).headless
	}
	if req.Tool == webFetchTool {
		return g.webFetchDenial(req)
	}
	mode := "bypassPermissions"
	if req.Kind == tools.Edit {
		mode = "acceptEdits"
	}
	return fmt.Sprintf("permission denied: %s needs approval and no one can answer a prompt in headless mode; allow it with --allowed-tools '%s' or --permission-mode %s",
		g.describe(req), req.Tool, mode)
}

// proposedRules is what "allow for this session" remembers: for bash one
// rule per simple command not yet allowed (see bashRule), for other tools
// the whole tool, but for web_fetch its URL's domain.
func (g *Gate) proposedRules(req Request) []Pattern {
	if req.Tool == "bash" {
		return g.bash(req).rules
	}
	if req.Tool == webFetchTool {
		return []Pattern{webFetchRule(req.Subject)}
	}
	return []Pattern{{Tool: req.Tool}}
}
