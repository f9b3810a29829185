package spawn

import (
	"strings"
)

// Claude Code's agent files name tools its way (Read, Bash(git:*),
// mcp__server__tool) and carry fields Atomic has no counterpart for. This
// file maps what Atomic has and names what it lacks, so such files load
// unchanged, with one warning saying what was ignored.

// claudeTool maps a Claude Code tool name (lower-cased) to Atomic's. A
// switch, not a map: a package-level map is built at init in every process.
func claudeTool(low string) (string, bool) {
	switch low {
	case "read", "write", "edit", "bash", "glob", "grep", "ls":
		return low, true
	case "multiedit":
		return "multi_edit", true
	case "webfetch":
		return "web_fetch", true
	case "todowrite":
		return "todo_write", true
	case "task", "agent": // Claude Code's sub-agent tool, under both its names
		return "task", true
	}
	return "", false
}

// mapTool turns one tools entry into Atomic's tool name. scope is the
// argument of a scoped entry (git:* of Bash(git:*)), which Atomic does not
// apply per agent. ok is false for tools Atomic lacks.
func mapTool(entry string, known []string) (name, scope string, ok bool) {
	entry = strings.TrimSpace(entry)
	base := entry
	if i := strings.IndexByte(entry, '('); i > 0 && strings.HasSuffix(entry, ")") {
		base, scope = entry[:i], entry[i+1:len(entry)-1]
	}
	low := strings.ToLower(strings.TrimSpace(base))
	if strings.HasPrefix(low, "mcp__") {
		// An MCP tool (or a whole server): its server may not be up when
		// agent files load, so the sub-agent manager resolves it at spawn.
		return strings.TrimSpace(base), scope, true
	}
	for _, k := range known {
		if k == low || k == base {
			return k, scope, true
		}
	}
	// task is not among the known tools: the sub-agent manager adds it.
	if n, found := claudeTool(low); found && (known == nil || contains(known, n) || n == "task") {
		return n, scope, true
	}
	return "", scope, false
}

// claudeModel normalises a model field: inherit (or nothing) is "", the
// lead's model; Claude Code's aliases are kept as sonnet, opus or haiku,
// which the sub-agent runtime also runs on the lead's model, since the
// lead's provider may not be Anthropic; full model ids are kept.
func claudeModel(m string) string {
	m = strings.TrimSpace(m)
	low := strings.ToLower(m)
	if i := strings.IndexByte(low, '['); i > 0 { // sonnet[1m]
		low = low[:i]
	}
	switch low {
	case "", "inherit", "default":
		return ""
	case "sonnet", "opus", "haiku":
		return low
	case "opusplan":
		return "opus"
	}
	return m
}

// ignoredField reports a Claude Code front-matter field Atomic has no
// counterpart for; it is accepted and named in the file's warning.
func ignoredField(key string) bool {
	switch key {
	case "permissionmode", "mcpservers", "maxturns",
		"memory", "background", "initialprompt",
		"argument-hint", "allowed-tools", "version", "author", "tags",
		"category", "backend":
		return true
	}
	return false
}

// quietField reports a field accepted without a word: cosmetic or
// informational.
func quietField(key string) bool { return key == "color" || key == "emoji" || key == "icon" }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
