package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFiles writes files (slash paths under root → contents), making
// their folders: a project laid out for a test.
func WriteFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
