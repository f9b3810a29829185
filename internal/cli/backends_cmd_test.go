package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBackendsListsEveryBackendWithWhereItsCLIIsItsVersionAndItsPackage(t *testing.T) {
	bin := t.TempDir()
	// A CLI on PATH answers --version as Claude Code does.
	script := "#!/bin/sh\n[ \"$1\" = --version ] && echo '2.1.330 (Claude Code)'\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runEnv(t, map[string]string{"PATH": bin}, "backends", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []backendStatus
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	by := map[string]backendStatus{}
	for _, r := range rows {
		by[r.Name] = r
	}
	if r := by["native"]; !r.Found || !r.Background || !r.Approvals {
		t.Errorf("native = %+v, want found (built in) with every capability", r)
	}
	if r := by["claude-code"]; !r.Found || r.Path != filepath.Join(bin, "claude") || r.Version != "2.1.330" || r.Package != "@anthropic-ai/claude-code" {
		t.Errorf("claude-code = %+v, want found on PATH, version 2.1.330, package @anthropic-ai/claude-code", r)
	}
	if r := by["codex"]; r.Found || r.Package != "@openai/codex" {
		t.Errorf("codex = %+v, want not found, naming @openai/codex", r)
	}
	if r := by["claude-code"]; r.API != "anthropic" || r.Images || !r.Plan || !r.Resume {
		t.Errorf("claude-code = %+v, want the Anthropic API, text only, plan updates and resume", r)
	}
	if r := by["opencode"]; r.API != "openai" || r.Plan || r.Images {
		t.Errorf("opencode = %+v, want the OpenAI API, neither plan updates nor images", r)
	}

	code, out, _ = runEnv(t, map[string]string{"PATH": bin}, "backends")
	if code != 0 || !strings.Contains(out, "not found (codex is not on PATH)") || !strings.Contains(out, "@openai/codex") ||
		!strings.Contains(out, "BACKGROUND") || !strings.Contains(out, "IMAGES") || !strings.Contains(out, "anthropic") {
		t.Errorf("table (exit %d):\n%s", code, out)
	}
}

func TestBackendsRejectsAnArgument(t *testing.T) {
	if code, _, errOut := runEnv(t, nil, "backends", "codex"); code != 2 || !strings.Contains(errOut, `unexpected argument "codex"`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
