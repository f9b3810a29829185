package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestPlanSplitsTheFoldersLeadingToASecretAndSkipsTheSecret(t *testing.T) {
	home := homeWithSecrets(t)
	rules := plan([]string{"/work/ws"}, expand([]string{filepath.Join(home, ".ssh"), filepath.Join(home, ".config/atomic")}))
	var reads []string
	var writes []string
	for _, r := range rules {
		if r.write {
			writes = append(writes, r.path)
		} else {
			reads = append(reads, r.path)
		}
	}
	for _, want := range []string{filepath.Join(home, ".bashrc"), filepath.Join(home, "src"), filepath.Join(home, ".config/git"), "/usr", "/etc"} {
		if !slices.Contains(reads, want) {
			t.Errorf("%s is not readable; reads: %v", want, reads)
		}
	}
	for _, bad := range []string{home, filepath.Join(home, ".ssh"), filepath.Join(home, ".config"), filepath.Join(home, ".config/atomic"), filepath.Join(home, "keys"), "/"} {
		if slices.Contains(reads, bad) {
			t.Errorf("%s is readable as a whole, which opens a secret", bad)
		}
	}
	if !slices.Equal(writes, []string{"/work/ws"}) {
		t.Errorf("writes = %v, want the workspace only", writes)
	}
}

func TestPlanAllowsAllOfRootWhenNoSecretExists(t *testing.T) {
	rules := plan(nil, nil)
	if len(rules) != 1 || rules[0] != (rule{path: "/"}) {
		t.Fatalf("rules = %v, want / readable", rules)
	}
}

func TestParseModeNamesTheBadValue(t *testing.T) {
	for in, want := range map[string]Mode{"": WorkspaceWrite, "read-only": ReadOnly, "workspace-write": WorkspaceWrite, "off": Off} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("full"); err == nil || err.Error() != `sandbox mode "full" is not one of read-only, workspace-write, off` {
		t.Errorf("ParseMode(full) error = %v", err)
	}
}

func TestExplainNamesWhatTheSandboxBlockedAndTheFlagThatAllowsIt(t *testing.T) {
	ws := &Sandbox{mode: WorkspaceWrite, p: &prepared{secrets: []string{"/home/u/.ssh"}}}
	ro := &Sandbox{mode: ReadOnly, p: &prepared{}}
	net := &Sandbox{mode: WorkspaceWrite, network: true, p: &prepared{}}
	tests := []struct {
		name   string
		s      *Sandbox
		output string
		want   string
	}{
		{"a write outside", ws, "touch: cannot touch '/tmp/x': Permission denied", "atomic: the sandbox (workspace-write) blocked this: writes outside the workspace and $TMPDIR are not allowed (nor reads of secret stores such as ~/.ssh); --add-dir DIR or --sandbox off would allow it"},
		{"a secret read", ws, "cat: /home/u/.ssh/id_x: Permission denied", "atomic: the sandbox (workspace-write) blocked this: commands may not read the secret store /home/u/.ssh; --sandbox off would allow it"},
		{"a socket", ws, "dial tcp 127.0.0.1:80: socket: permission denied", "atomic: the sandbox (workspace-write) blocked this: commands have no network access; --allow-network or --sandbox off would allow it"},
		{"a socket with the network allowed is a file matter", net, "connect: permission denied", "atomic: the sandbox (workspace-write) blocked this: writes outside the workspace and $TMPDIR are not allowed (nor reads of secret stores such as ~/.ssh); --add-dir DIR or --sandbox off would allow it"},
		{"curl's own words for a refused socket", ws, "curl: (7) Failed to connect to 127.0.0.1 port 40491 after 0 ms: Couldn't connect to server", "atomic: the sandbox (workspace-write) blocked this: commands have no network access; --allow-network or --sandbox off would allow it"},
		{"read-only", ro, "bash: x: Read-only file system", "atomic: the sandbox (read-only) blocked this: commands may not write (except in $TMPDIR); --sandbox workspace-write would allow writes in the workspace"},
		{"an unrelated failure", ws, "exit status 1: no such file", ""},
		{"the sandbox off never claims", nil, "Permission denied", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.Explain(tt.output); got != tt.want {
				t.Errorf("Explain(%q) =\n%q\nwant\n%q", tt.output, got, tt.want)
			}
		})
	}
}

func TestPlanSplitsAWritableFolderThatHoldsASecretAndGivesTheSecretNoRule(t *testing.T) {
	home := homeWithSecrets(t)
	link := filepath.Join(t.TempDir(), "home-link") // the workspace named through a symlink
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	secrets := expand([]string{filepath.Join(home, ".ssh"), filepath.Join(home, ".config/atomic")})
	for _, ws := range []string{home, link} {
		rules := plan([]string{ws, filepath.Join(home, ".ssh", "inner")}, secrets)
		var writes []string
		for _, r := range rules {
			if r.write {
				writes = append(writes, r.path)
			}
		}
		for _, want := range []string{filepath.Join(home, ".bashrc"), filepath.Join(home, "src"), filepath.Join(home, ".config/git")} {
			if !slices.Contains(writes, want) {
				t.Errorf("workspace %s: %s is not writable; writes: %v", ws, want, writes)
			}
		}
		for _, w := range writes {
			if w == link || isUnder(w, secrets) || leadsTo(w, secrets) || w == filepath.Join(home, "keys") {
				t.Errorf("workspace %s: write rule on %s opens a secret store; writes: %v", ws, w, writes)
			}
		}
	}
}

// homeWithSecrets makes a home with two secret stores (.ssh,
// .config/atomic) beside ordinary files and folders, and a symlink "keys"
// into .ssh, which must not open it.
func homeWithSecrets(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	for _, d := range []string{".ssh", ".config/atomic", ".config/git", "src"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "keys")); err != nil {
		t.Fatal(err)
	}
	return home
}
