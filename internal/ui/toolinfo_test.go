package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestApprovalOfAMultiEditPreviewsItsWholeDiff(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "config.go", "package config\n\nconst Port = 8080\nconst Host = \"localhost\"\n")
	in, _ := json.Marshal(map[string]any{"file_path": "config.go", "edits": []map[string]string{
		{"old_string": "8080", "new_string": "9090"},
		{"old_string": `"localhost"`, "new_string": `"0.0.0.0"`},
	}})
	diff := ToolDiffer(tools.Core(tools.Workspace{Root: dir}))(permission.Request{Tool: "multi_edit", Kind: tools.Edit, Input: in})
	for _, want := range []string{"--- a/config.go", "-const Port = 8080", "+const Port = 9090", "-const Host = \"localhost\"", "+const Host = \"0.0.0.0\""} {
		if !strings.Contains(diff, want) {
			t.Errorf("preview does not contain %q:\n%s", want, diff)
		}
	}
}
