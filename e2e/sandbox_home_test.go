package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Atomic started in $HOME (a common habit), or given --add-dir ~, writes
// there through the model's commands but does not let them read or plant
// keys in ~/.ssh: the write rule on home used to cover reading the keys.
// The run says once what the secrets limit.
func TestRunInHomeOrWithHomeAddedCommandsCannotReadOrPlantSSHKeys(t *testing.T) {
	for _, how := range []string{"run in home", "--add-dir home"} {
		t.Run(how, func(t *testing.T) {
			checks := []string{
				`cat ~/.ssh/id_ed25519`,
				`echo ssh-ed25519 AAAA attacker >> ~/.ssh/authorized_keys`,
				`echo built > ~/src/out.txt && cat ~/src/out.txt`,
			}
			srv := bashCallsServer(t, checks, []string{"read key", "plant key", "write src"})
			ws := workspace(t, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := command(t, ctx, srv, "anthropic", ws, "-p", "go", "--permission-mode", "bypassPermissions")
			var home string
			for _, kv := range cmd.Env {
				if h, ok := strings.CutPrefix(kv, "HOME="); ok {
					home = h
				}
			}
			for p, c := range map[string]string{".ssh/id_ed25519": "PRIVATE KEY\n", "src/main.go": "package main\n"} {
				os.MkdirAll(filepath.Join(home, filepath.Dir(p)), 0o700)
				if err := os.WriteFile(filepath.Join(home, p), []byte(c), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if how == "run in home" {
				cmd.Dir = home
			} else {
				cmd.Args = append(cmd.Args, "--add-dir", home)
			}
			r := runCmd(t, cmd)
			if r.code != 0 {
				t.Fatalf("code %d: %s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, home+" holds "+filepath.Join(home, ".ssh")) {
				t.Errorf("stderr does not say what the secret store limits:\n%s", r.stderr)
			}
			log := srv.Log()
			if len(log) != 2 {
				t.Fatalf("%d model requests, want 2", len(log))
			}
			res := log[1].LastToolResults()
			if len(res) != 3 {
				t.Fatalf("%d tool results, want 3", len(res))
			}
			if strings.Contains(res[0].Content, "PRIVATE KEY") || !res[0].IsError {
				t.Errorf("the key was read: %+v", res[0])
			}
			if !res[1].IsError {
				t.Errorf("a key was planted: %+v", res[1])
			}
			if _, err := os.Stat(filepath.Join(home, ".ssh", "authorized_keys")); err == nil {
				t.Error("authorized_keys exists")
			}
			if res[2].IsError || !strings.Contains(res[2].Content, "built") {
				t.Errorf("home's other folders are not writable: %+v", res[2])
			}
		})
	}
}
