package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Started in a home that holds ~/.ssh (Atomic run in $HOME), the file
// tools keep out of it as the sandbox keeps commands out: no read, write
// or edit in it, directly or through a symlink, and no search returns its
// files.
func TestTheFileToolsKeepOutOfASecretStoreInsideTheWorkspace(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"src/main.go": "package main\n", ".ssh/id_rsa": "PRIVATE-KEY-4711\n"})
	ws.Secrets = []string{filepath.Join(ws.Root, ".ssh")}
	if err := os.Symlink(filepath.Join(ws.Root, ".ssh"), filepath.Join(ws.Root, "src", "keys")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{".ssh/id_rsa", filepath.Join(ws.Root, ".ssh/id_rsa"), "src/keys/id_rsa"} {
		assertContains(t, mustFail(t, NewRead(ws), map[string]any{"file_path": path}), "secret store")
		assertContains(t, mustFail(t, NewWrite(ws), map[string]any{"file_path": path, "content": "x"}), "secret store")
	}
	assertContains(t, mustFail(t, NewWrite(ws), map[string]any{"file_path": ".ssh/authorized_keys", "content": "ssh-rsa attacker"}), "secret store")
	if got := mustSucceed(t, NewGrep(ws), map[string]any{"pattern": "PRIVATE-KEY", "output_mode": "content"}); strings.Contains(got, "4711") {
		t.Errorf("grep returned the key: %q", got)
	}
	if got := mustSucceed(t, NewGlob(ws), map[string]any{"pattern": "**/id_rsa"}); strings.Contains(got, "id_rsa") && !strings.Contains(got, "No files") {
		t.Errorf("glob listed the key: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws.Root, ".ssh/id_rsa")); string(b) != "PRIVATE-KEY-4711\n" {
		t.Errorf("the key changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws.Root, ".ssh/authorized_keys")); err == nil {
		t.Error("authorized_keys was planted")
	}
	// The rest of the workspace is the tools' as before.
	assertContains(t, mustSucceed(t, NewRead(ws), map[string]any{"file_path": "src/main.go"}), "package main")
}
