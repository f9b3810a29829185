package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestABadSandboxSettingStopsTheRunNamingWhatWasWrong(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"sandbox": "strict"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"flag", []string{"run", "--sandbox", "full", "--demo", "-p", "hi"}, `atomic: --sandbox: sandbox mode "full" is not one of read-only, workspace-write, off`},
		{"config", []string{"run", "--config", cfg, "--demo", "-p", "hi"}, `atomic: config sandbox: sandbox mode "strict" is not one of read-only, workspace-write, off`},
		{"missing --add-dir", []string{"run", "--add-dir", "/nonexistent/extra", "--demo", "-p", "hi"}, `atomic: --add-dir /nonexistent/extra: no such folder`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, tt.args...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errOut, tt.want)
			}
		})
	}
}

func TestASandboxedRunRemovesItsTempDirAtTheEnd(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // os.MkdirTemp reads the process's TMPDIR
	for _, mode := range []string{"workspace-write", "read-only", "off"} {
		code, _, errOut := run(t, "run", "--sandbox", mode, "--demo", "--no-session-persistence", "-p", "hi")
		if code != 0 {
			t.Fatalf("--sandbox %s: exit %d: %s", mode, code, errOut)
		}
		if strings.Contains(errOut, "sandbox") {
			t.Errorf("--sandbox %s: stderr mentions the sandbox on a kernel that has one: %s", mode, errOut)
		}
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		if strings.HasPrefix(e.Name(), "atomic-sandbox-") {
			t.Errorf("%s left behind", e.Name())
		}
	}
}
