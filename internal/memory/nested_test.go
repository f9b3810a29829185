package memory

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

func readAs(t *testing.T, read tools.Tool, agent, path string) tools.Result {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"file_path": path})
	return tools.Execute(context.Background(), read, tools.Call{ID: "c", AgentID: agent, Input: in})
}

func TestAnAgentGetsAFoldersInstructionsTheFirstTimeItReadsAFileThere(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"CLAUDE.md":                  "ROOT: already in the system prompt",
		"main.go":                    "package main",
		"svc/CLAUDE.md":              "SVC: run make in svc\n@../shared.md",
		"shared.md":                  "SHARED: imported",
		"svc/api/AGENTS.md":          "API: not read, the override wins",
		"svc/api/AGENTS.override.md": "API-OVERRIDE: keep handlers small",
		"svc/api/CLAUDE.local.md":    "API-LOCAL: mine",
		"svc/api/handler.go":         "package api",
		"svc/api/handler_test.go":    "package api",
		"svc/other.go":               "package svc",
		"docs/readme.txt":            "no memory here",
	})
	read := WithNested(tools.NewRead(tools.Workspace{Root: root}), root, "")
	if s, ok := read.(tools.Subjecter); !ok || s.Subject(json.RawMessage(`{"file_path":"main.go"}`)) == "" {
		t.Error("the wrapped read tool lost its subject")
	}
	res := readAs(t, read, "lead", "svc/api/handler.go")
	for _, want := range []string{"package api", "Contents of " + filepath.Join(root, "svc", "CLAUDE.md"), "SVC: run make in svc", "SHARED: imported",
		"API-OVERRIDE: keep handlers small", "API-LOCAL: mine"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("first read lacks %q:\n%s", want, res.Content)
		}
	}
	if strings.Contains(res.Content, "ROOT:") || strings.Contains(res.Content, "API: not read") {
		t.Errorf("first read has the root's memory or the overridden AGENTS.md:\n%s", res.Content)
	}
	for _, again := range []string{"svc/api/handler_test.go", "svc/other.go", "main.go", "docs/readme.txt"} {
		if r := readAs(t, read, "lead", again); strings.Contains(r.Content, "project-memory") {
			t.Errorf("reading %s again gave instructions already given:\n%s", again, r.Content)
		}
	}
	other := readAs(t, read, "explore-1", filepath.Join(root, "svc", "other.go"))
	if !strings.Contains(other.Content, "SVC: run make in svc") || strings.Contains(other.Content, "API-OVERRIDE") {
		t.Errorf("another agent's first read in svc:\n%s", other.Content)
	}
	if r := readAs(t, read, "explore-2", "svc/missing.go"); !r.IsError || strings.Contains(r.Content, "SVC:") {
		t.Errorf("a failed read gave instructions: %+v", r)
	}
}
