package hooks

import (
	"encoding/json"
	"strings"
)

// output is a hook's JSON answer on stdout (exit 0), with Claude Code's
// field names; context and exit2 are what Atomic read from a plain answer.
type output struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"`
	SystemMessage  string `json:"systemMessage"`
	// Decision is "block" (PostToolUse, UserPromptSubmit, Stop,
	// SubagentStop), or PreToolUse's deprecated "approve"/"block".
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Specific struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`

	context string
	exit2   bool
}

// parseOutput reads stdout as the JSON answer; ok is false when it is not
// one (plain text).
func parseOutput(stdout string) (out output, ok bool) {
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") {
		return out, false
	}
	if json.Unmarshal([]byte(s), &out) != nil {
		return output{}, false
	}
	return out, true
}

// decision is the permission decision the answer gives ("": none).
func (o output) decision() string {
	switch d := o.Specific.PermissionDecision; d {
	case "allow", "deny", "ask":
		return d
	}
	switch o.Decision { // before hookSpecificOutput, PreToolUse said this
	case "approve":
		return "allow"
	}
	return ""
}

// blocks reports whether the answer blocks: decision "block", or a
// permission decision "deny".
func (o output) blocks() bool {
	return o.Decision == "block" || o.Specific.PermissionDecision == "deny"
}

func (o output) reason() string {
	if o.Specific.PermissionDecisionReason != "" {
		return o.Specific.PermissionDecisionReason
	}
	return o.Reason
}
