package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
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
