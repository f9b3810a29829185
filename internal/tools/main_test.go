package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/sandbox"
)

// bashHelperEnv makes the test binary run one bash tool call, the
// command in this variable, in its working directory, and print the
// result; bashHelperSandbox names the sandbox mode ("": off).
const (
	bashHelperEnv     = "ATOMIC_TOOLS_TEST_BASH"
	bashHelperSandbox = "ATOMIC_TOOLS_TEST_SANDBOX"
)

func TestMain(m *testing.M) {
	if command := os.Getenv(bashHelperEnv); command != "" {
		os.Exit(bashHelper(command, sandbox.Mode(os.Getenv(bashHelperSandbox))))
	}
	goleak.VerifyTestMain(m)
}

func bashHelper(command string, mode sandbox.Mode) int {
	dir, err := os.Getwd()
	if err != nil {
		fmt.Println(err)
		return 2
	}
	ws := Workspace{Root: dir}
	if mode != "" {
		if ws.Sandbox, err = sandbox.New(sandbox.Config{Mode: mode, Writable: []string{dir}}); err != nil {
			fmt.Println(err)
			return 2
		}
		defer ws.Sandbox.Close()
	}
	in, _ := json.Marshal(map[string]string{"command": command})
	res, err := NewBash(ws).Run(context.Background(), Call{ID: "c", Input: in})
	if err != nil {
		fmt.Println(err)
		return 2
	}
	fmt.Println(res.Content)
	return 0
}

// newWorkspace returns a workspace rooted in a fresh temporary directory
// holding files (path → content; a path ending in "/" makes a directory).
func newWorkspace(t testing.TB, files map[string]string) Workspace {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, files)
	return Workspace{Root: root}
}

func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(abs, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// input encodes v as a tool call input.
func input(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// call runs tool through Execute with input v, as the agent loop does.
func call(t testing.TB, tool Tool, v any) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return Execute(ctx, tool, Call{ID: "call-1", Input: input(t, v)})
}

// mustSucceed runs the call and fails the test on an error result.
func mustSucceed(t testing.TB, tool Tool, v any) string {
	t.Helper()
	res := call(t, tool, v)
	if res.IsError {
		t.Fatalf("%s %v: unexpected error result: %s", tool.Name(), v, res.Content)
	}
	return res.Content
}

// mustFail runs the call and returns its error text, failing the test on
// success.
func mustFail(t testing.TB, tool Tool, v any) string {
	t.Helper()
	res := call(t, tool, v)
	if !res.IsError {
		t.Fatalf("%s %v: want an error result, got: %s", tool.Name(), v, res.Content)
	}
	return res.Content
}

func assertContains(t testing.TB, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output does not contain %q:\n%s", w, got)
		}
	}
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
