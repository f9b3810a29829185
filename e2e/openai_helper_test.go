package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// atomic links neither the OpenAI SDK nor the NATS server: each lives in
// its own program (atomic-openai, atomic-nats), so a run pays for it only
// when it uses it.
func TestAtomicLinksNeitherTheOpenAISDKNorTheNATSServer(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/atomic")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/openai/openai-go") || strings.HasPrefix(p, "github.com/nats-io/nats-server") {
			t.Errorf("atomic links %s", p)
		}
	}
}

// Without atomic-openai, an OpenAI run stops at once saying what is
// missing and how to install it; an Anthropic run does not need it.
func TestWithoutItsHelperAnOpenAIRunSaysWhatIsMissing(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "atomic")
	b, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := server(t, "rules: [{respond: {text: fine}}]")
	for _, prov := range []string{"openai", "anthropic"} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := command(t, ctx, srv, prov, t.TempDir(), "-p", "hi")
		cmd.Path, cmd.Args[0] = alone, alone
		for i, kv := range cmd.Env {
			if strings.HasPrefix(kv, "PATH=") {
				cmd.Env[i] = "PATH=" + t.TempDir() // nor on PATH
			}
		}
		r := runCmd(t, cmd)
		cancel()
		if prov == "anthropic" {
			if r.code != 0 || !strings.Contains(r.stdout, "fine") {
				t.Errorf("anthropic without atomic-openai: code %d, stderr %q", r.code, r.stderr)
			}
			continue
		}
		if r.code == 0 || !strings.Contains(r.stderr, "atomic-openai") || !strings.Contains(r.stderr, "go install ./cmd/...") {
			t.Errorf("openai without atomic-openai: code %d, stderr %q; want a failure naming atomic-openai and how to install it", r.code, r.stderr)
		}
	}
}
