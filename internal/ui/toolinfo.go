package ui

import (
	"encoding/json"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// ToolSubject returns a Config.Subject that asks each tool of set for the
// argument that matters (tools.Subjecter), as sub-agent rows show it.
func ToolSubject(set *tools.Set) func(string, json.RawMessage) string {
	return func(name string, input json.RawMessage) string {
		t, ok := set.Get(name)
		if !ok {
			return ""
		}
		if sj, ok := t.(tools.Subjecter); ok {
			return sj.Subject(input)
		}
		return ""
	}
}

// ToolDiffer returns a differ for NewApprovals that previews the change of
// an edit call with the tool's own diff (tools.Differ). It reads the file,
// so the queue calls it on the asking agent's goroutine, not the UI's.
func ToolDiffer(set *tools.Set) func(permission.Request) string {
	return func(req permission.Request) string {
		t, ok := set.Get(req.Tool)
		if !ok {
			return ""
		}
		d, ok := t.(tools.Differ)
		if !ok {
			return ""
		}
		diff, err := d.Diff(req.Input)
		if err != nil {
			return "(no preview: " + err.Error() + ")"
		}
		return diff
	}
}
