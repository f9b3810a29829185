package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Atomic run in $HOME, or given --add-dir ~, has a writable folder that
// holds a secret store: commands write its other files and folders but
// neither read nor change the secret, with or without the mount
// namespace.
func TestAWritableFolderHoldingASecretStoreKeepsTheSecretFromCommands(t *testing.T) {
	for _, shield := range []bool{true, false} {
		for _, how := range []string{"workspace", "added folder"} {
			name := how + ", mount namespace"
			if !shield {
				name = how + ", Landlock alone"
			}
			t.Run(name, func(t *testing.T) {
				if !shield {
					was := mayShield
					mayShield = func() bool { return false }
					t.Cleanup(func() { mayShield = was })
				}
				secretHolderStaysClosed(t, how == "workspace")
			})
		}
	}
}

func secretHolderStaysClosed(t *testing.T, asWorkspace bool) {
	f := newFixture(t)
	mkdirs(t, filepath.Join(f.home, "src"))
	writable := []string{f.ws, f.home}
	if asWorkspace {
		writable = []string{f.home}
	}
	s, err := New(Config{Mode: WorkspaceWrite, Writable: writable, Secrets: DefaultSecrets(f.home)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, tt := range []struct{ script, why string }{
		{`cat ~/.ssh/id_x`, "read the secret key"},
		{`echo planted > ~/.ssh/authorized_keys`, "planted a file in the secret store"},
		{`echo x >> ~/.ssh/id_x`, "changed the secret key"},
		{`rm ~/.ssh/id_x`, "removed the secret key"},
		{`mv ~/.ssh ~/moved`, "moved the secret store"},
		{`ln ~/.ssh/id_x ~/src/link && cat ~/src/link`, "read the key through a hard link"},
	} {
		if out, ok := f.run(t, s, tt.script); ok {
			t.Errorf("%s: a command %s: %s", tt.script, tt.why, out)
		}
	}
	if got := readFile(t, filepath.Join(f.home, ".ssh", "id_x")); got != "PRIVATE KEY\n" {
		t.Errorf("the key changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.home, ".ssh", "authorized_keys")); err == nil {
		t.Error("authorized_keys was planted")
	}
	// The rest of the folder stays writable.
	if out, ok := f.run(t, s, `echo x > ~/src/new && mkdir ~/src/d && echo more >> ~/notes.txt && cat ~/notes.txt`); !ok || !strings.Contains(out, "more") {
		t.Errorf("the folder's other files are not writable: %s", out)
	}
}

func TestOverlapsNamesAFolderInsideASecretStoreAndOneThatHoldsOne(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	mkdirs(t, filepath.Join(home, ".ssh", "inner"), filepath.Join(home, "src"))
	secrets := []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".aws")} // .aws does not exist
	got := Overlaps([]string{filepath.Join(home, "src"), home, filepath.Join(home, ".ssh", "inner")}, secrets)
	if len(got) != 2 {
		t.Fatalf("Overlaps = %q, want two lines", got)
	}
	if !strings.Contains(got[0], home+" holds "+filepath.Join(home, ".ssh")+":") || strings.Contains(got[0], ".aws") {
		t.Errorf("%q does not name the secret store home holds (and only the one that exists)", got[0])
	}
	if !strings.Contains(got[1], filepath.Join(home, ".ssh", "inner")+" is inside a secret store") {
		t.Errorf("%q does not name the folder inside the secret store", got[1])
	}
}
