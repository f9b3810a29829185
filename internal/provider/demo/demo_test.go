package demo_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider/demo"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func run(t *testing.T, prompt string) (runtime.Outcome, []lifecycle.Record) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Widget factory\nMakes widgets.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	gate, _ := permission.NewGate(permission.Options{})
	rt := runtime.New(runtime.Config{Provider: &demo.Provider{}, Gate: gate, Workspace: tools.Workspace{Root: dir}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { rt.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done; rt.Close() }()
	rt.Submit(prompt)
	select {
	case out := <-rt.Completed():
		return out, rt.Bus().Agents()
	case <-time.After(10 * time.Second):
		t.Fatal("demo run never completed")
	}
	return runtime.Outcome{}, nil
}

func TestDemoExploresTheWorkspaceForRealAndSaysItIsTheDemo(t *testing.T) {
	out, _ := run(t, "what is this?")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	for _, want := range []string{demo.Banner, "# Widget factory", "README.md", "main.go"} {
		if !strings.Contains(out.Result, want) {
			t.Errorf("answer lacks %q:\n%s", want, out.Result)
		}
	}
}

func TestDemoAskedAboutAgentsFansOutToThreeExplorers(t *testing.T) {
	out, agents := run(t, "explore this with agents")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if len(agents) != 3 {
		t.Fatalf("%d agents", len(agents))
	}
	for _, a := range agents {
		if a.Status != lifecycle.Completed || a.Name != "Explore" || a.ToolUses != 1 {
			t.Errorf("agent %+v", a)
		}
	}
	if !strings.Contains(out.Result, "`**/*.go`: 1 (main.go)") {
		t.Fatalf("lead summary should carry the explorers' real findings:\n%s", out.Result)
	}
}
