package claudecode

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
)

// The CLI's WebFetch and MultiEdit are Atomic's web_fetch and multi_edit,
// so the user's rules for those (a domain, a path) decide the CLI's calls.
func TestTheCLIsWebFetchAndMultiEditFollowOurRulesForWebFetchAndMultiEdit(t *testing.T) {
	root := t.TempDir()
	gate, err := permission.NewGate(permission.Options{Mode: permission.Default, Root: root,
		Allowed: []string{"web_fetch(domain:go.dev)", "multi_edit(src/:*)"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, input string
		allow       bool
	}{
		{"WebFetch", `{"url":"https://go.dev/doc","prompt":"x"}`, true},
		{"WebFetch", `{"url":"https://example.com/","prompt":"x"}`, false},
		{"MultiEdit", `{"file_path":"` + root + `/src/a.go","edits":[]}`, true},
		{"MultiEdit", `{"file_path":"` + root + `/other/a.go","edits":[]}`, false},
	}
	for _, c := range cases {
		tr := newTranslator("s1", "lead", event.Discard, nil)
		ap := &approval{requestID: "r1", req: canUseTool{Subtype: "can_use_tool", ToolName: c.tool, Input: json.RawMessage(c.input), ToolUseID: "tu1"}}
		var resp map[string]any
		if err := json.Unmarshal(tr.decide(context.Background(), gate, ap), &resp); err != nil {
			t.Fatal(err)
		}
		v := resp["response"].(map[string]any)["response"].(map[string]any)
		if got := v["behavior"] == "allow"; got != c.allow {
			t.Errorf("%s %s: behavior %v (%v), want allow=%v", c.tool, c.input, v["behavior"], v["message"], c.allow)
		}
		if msg, _ := v["message"].(string); !c.allow && c.tool == "WebFetch" && !strings.Contains(msg, "web_fetch(domain:example.com)") {
			t.Errorf("denial %q does not name the rule that would allow it", msg)
		}
	}
}
