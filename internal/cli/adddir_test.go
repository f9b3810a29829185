package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/sandbox"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestAddDirAddsTheFolderToTheRunningSessionsToolsSandboxAndConfig(t *testing.T) {
	home, extra := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	sess := chatSession(t, t.TempDir(), chatEnv(t, home), "--demo")
	t.Cleanup(func() { sess.s.sandbox.Close() })
	write, _ := tools.Core(sess.s.workspace).Get("write") // made before the add, as the lead's are
	target := filepath.Join(extra, "new.txt")
	in, _ := json.Marshal(map[string]string{"file_path": target, "content": "x"})
	if res := tools.Execute(context.Background(), write, tools.Call{ID: "1", Input: in}); !res.IsError {
		t.Fatalf("write outside the workspace before /add-dir succeeded: %s", res.Content)
	}

	secret := filepath.Join(home, ".ssh")
	if _, err := sess.AddDir(secret); err == nil || !strings.Contains(err.Error(), secret) {
		t.Errorf("/add-dir of a secret store: %v, want a refusal naming it", err)
	}
	if got, err := sess.AddDir(extra); err != nil || got != extra {
		t.Fatalf("/add-dir %s = %q, %v", extra, got, err)
	}
	if got := sess.s.workspace.Added.List(); !slices.Equal(got, []string{extra}) {
		t.Errorf("added folders %v; want only %s (the refused secret store is not added)", got, extra)
	}
	if res := tools.Execute(context.Background(), write, tools.Call{ID: "2", Input: in}); res.IsError {
		t.Fatalf("write into the added folder: %s", res.Content)
	}
	if sess.s.sandbox.Mode() == sandbox.WorkspaceWrite {
		cmd := exec.Command("/bin/sh", "-c", "echo y > "+filepath.Join(extra, "cmd.txt"))
		if out, err := sandboxRun(sess.s.sandbox, cmd); err != nil {
			t.Errorf("a command started after /add-dir could not write the folder: %v %s", err, out)
		}
	}
	if _, err := sess.AddDir(extra); err == nil || !strings.Contains(err.Error(), "already in the workspace") {
		t.Errorf("a second /add-dir of the folder: %v", err)
	}
	var listed bool
	for _, r := range sess.Settings() {
		listed = listed || r.Name == "added folders" && r.Value == extra && r.From == "/add-dir (this session)"
	}
	if !listed {
		t.Errorf("/config does not list %s as added: %+v", extra, sess.Settings())
	}
}

func sandboxRun(sb *sandbox.Sandbox, cmd *exec.Cmd) (string, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := sb.Start(cmd); err != nil {
		return "", err
	}
	err := cmd.Wait()
	return out.String(), err
}
