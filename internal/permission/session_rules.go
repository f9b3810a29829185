package permission

import (
	"fmt"
	"slices"
)

// RuleInForce is one rule the gate applies and where it came from, as
// /permissions lists it.
type RuleInForce struct {
	Kind RuleKind
	Rule string
	// Source is the flag, file or session event that added the rule.
	Source string
	// Note says why a rule is not applied ("" when it is).
	Note string
}

// Rules lists the rules in force: deny first (they win), then ask, then
// allow; within each, flags and files before this session's.
func (g *Gate) Rules() []RuleInForce {
	var deny, ask, allow []RuleInForce
	from := func(list []string, i int, def string) string {
		if i < len(list) && list[i] != "" {
			return list[i]
		}
		return def
	}
	for i, p := range g.disallowed {
		deny = append(deny, RuleInForce{Kind: RuleDeny, Rule: p.String(), Source: from(g.disallowedFrom, i, "--disallowed-tools")})
	}
	settingsAllows, _ := allowPatterns(g.claude)
	for i, p := range g.allowed[:len(g.allowed)-len(settingsAllows)] {
		allow = append(allow, RuleInForce{Kind: RuleAllow, Rule: p.String(), Source: from(g.allowedFrom, i, "--allowed-tools")})
	}
	for _, r := range g.claude {
		ri := RuleInForce{Kind: r.Kind, Rule: r.Text, Source: r.Source, Note: r.Unapplied()}
		switch r.Kind {
		case RuleDeny:
			deny = append(deny, ri)
		case RuleAsk:
			ask = append(ask, ri)
		default:
			allow = append(allow, ri)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, p := range g.denied {
		deny = append(deny, RuleInForce{Kind: RuleDeny, Rule: p.String(), Source: "/permissions deny (this session)"})
	}
	for _, p := range g.refused {
		deny = append(deny, RuleInForce{Kind: RuleDeny, Rule: p.String(), Source: "declined for this session"})
	}
	for _, p := range g.session {
		allow = append(allow, RuleInForce{Kind: RuleAllow, Rule: p.String(), Source: "allowed for this session"})
	}
	return slices.Concat(deny, ask, allow)
}

// AllowForSession allows rule (Atomic's or Claude Code's spelling:
// "bash(go test:*)", "Bash(git add:*)", "Edit") for the rest of the
// session, as answering "allow for this session" does: it loosens only
// what would be asked, so deny rules, declines and plan mode still hold.
func (g *Gate) AllowForSession(rule string) error {
	p, err := sessionPattern(rule)
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.session = append(g.session, p)
	g.mu.Unlock()
	return nil
}

// DenyForSession denies rule for the rest of the session, as a
// --disallowed-tools pattern does (a bash rule per simple command).
func (g *Gate) DenyForSession(rule string) error {
	p, err := sessionPattern(rule)
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.denied = append(g.denied, p)
	g.mu.Unlock()
	return nil
}

func sessionPattern(rule string) (Pattern, error) {
	p, err := ParsePattern(rule)
	if err != nil {
		return Pattern{}, err
	}
	name, ok := claudeToolName(p.Tool)
	if !ok {
		return Pattern{}, fmt.Errorf("%q names no tool Atomic has", rule)
	}
	p.Tool = name
	return p, nil
}

// denyRules are the flags' deny patterns and this session's.
func (g *Gate) denyRules() []Pattern {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.denied) == 0 {
		return g.disallowed
	}
	return slices.Concat(g.disallowed, g.denied)
}

// denySource names where deny pattern p came from, for denials.
func (g *Gate) denySource(p Pattern) string {
	if i := slices.Index(g.disallowed, p); i >= 0 && i < len(g.disallowedFrom) && g.disallowedFrom[i] != "" {
		return g.disallowedFrom[i]
	}
	if slices.Contains(g.disallowed, p) {
		return "--disallowed-tools"
	}
	return "/permissions deny"
}
