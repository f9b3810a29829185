package e2e

import (
	"strings"
	"testing"
)

func TestAFoldersCLAUDEmdReachesTheModelWithItsFirstReadThereOnce(t *testing.T) {
	srv := server(t, settingsScenario([]settingsCall{
		{"read", map[string]any{"file_path": "svc/api.go"}},
		{"read", map[string]any{"file_path": "svc/db.go"}},
	}))
	ws := workspace(t, map[string]string{
		"CLAUDE.md":     "ROOT-MEMORY: in the system prompt",
		"svc/CLAUDE.md": "SVC-MEMORY: svc uses sqlc",
		"svc/api.go":    "package svc // api",
		"svc/db.go":     "package svc // db",
	})
	r := atomic(t, srv, "anthropic", ws, "-p", "look at svc")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	log := srv.Log()
	if len(log) != 2 {
		t.Fatalf("%d requests, want 2", len(log))
	}
	if strings.Contains(log[0].System, "SVC-MEMORY") || !strings.Contains(log[0].System, "ROOT-MEMORY") {
		t.Errorf("system prompt: want the root's memory only:\n%s", log[0].System)
	}
	var n int
	for _, res := range log[1].LastToolResults() {
		n += strings.Count(res.Content, "SVC-MEMORY: svc uses sqlc")
	}
	if n != 1 {
		t.Errorf("svc/CLAUDE.md reached the model %d times with the two reads, want once: %+v", n, log[1].LastToolResults())
	}
}
