package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTheFilesAReadDenyRuleCoversAreFoundAtAnyDepthButNotInsideGit(t *testing.T) {
	ws := t.TempDir()
	for _, p := range []string{".env", "app/.env", "app/main.go", "secrets/k", ".git/.env", "deep/a/b/.env"} {
		full := filepath.Join(ws, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	denied := func(abs string) bool {
		return filepath.Base(abs) == ".env" || abs == filepath.Join(ws, "secrets")
	}
	got, complete := readDeniedInWorkspace([]string{ws}, denied)
	for i := range got {
		got[i] = strings.TrimPrefix(got[i], ws+"/")
	}
	slices.Sort(got)
	want := []string{".env", "app/.env", "deep/a/b/.env", "secrets"}
	if !complete || !slices.Equal(got, want) {
		t.Fatalf("got %v (complete %v), want %v", got, complete, want)
	}
}
