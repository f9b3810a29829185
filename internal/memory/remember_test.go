package memory

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRememberAppendsABulletToAgentsMdOrAnExistingClaudeMd(t *testing.T) {
	root := t.TempDir()
	file, err := Remember(root, "  use tabs  ")
	if err != nil || file != filepath.Join(root, "AGENTS.md") {
		t.Fatalf("Remember = %q, %v", file, err)
	}
	if _, err := Remember(root, "run go vet"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "- use tabs\n- run go vet\n" {
		t.Errorf("AGENTS.md = %q", b)
	}

	other := t.TempDir()
	claude := filepath.Join(other, "CLAUDE.md")
	if err := os.WriteFile(claude, []byte("# Notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if file, err := Remember(other, "prefer table tests"); err != nil || file != claude {
		t.Fatalf("Remember = %q, %v", file, err)
	}
	if b, _ := os.ReadFile(claude); string(b) != "# Notes\n- prefer table tests\n" {
		t.Errorf("CLAUDE.md = %q", b)
	}
	if _, err := Remember(other, " "); err == nil {
		t.Error("an empty line was remembered")
	}
}
