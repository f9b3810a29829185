// Package e2e runs the built atomic binary against the scripted loopback
// model server, as a user would: real processes, real wire protocols.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "atomic-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "atomic")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	// atomic-openai beside atomic, where atomic finds it (as go install
	// ./cmd/... puts them), built as the README installs them: without
	// cgo (see shipBuild).
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/atomic", "./cmd/atomic-openai")
	build.Env = shipBuild()
	build.Dir = root
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building atomic:", err)
		os.Exit(1)
	}
	flushWrites()
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// shipBuild is the environment of the go build that makes the binaries
// under test: the README's install command's, CGO_ENABLED=0. Atomic uses
// no C; with cgo on (go's default where a C compiler is found), net and
// os/user link libc and every Atomic thread gets a glibc malloc arena,
// about 1.5 MB of memory per process for nothing.
func shipBuild() []string { return append(os.Environ(), "CGO_ENABLED=0") }

// server starts a loopback model server with a YAML scenario.
// When the test fails, the server's request log is printed, so a rule that
// did not match shows what the client actually asked.
func server(t testing.TB, scenario string) *loopback.Server {
	t.Helper()
	srv := testkit.Loopback(t, scenario)
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("loopback request log:\n" + requestLog(srv.Log()))
		}
	})
	return srv
}

// requestLog is a compact view of log entries: per request its rule or
// outcome, then each message's role, text, tool calls and results.
func requestLog(log []loopback.LogEntry) string {
	var b strings.Builder
	clip := func(s string) string {
		if len(s) > 200 {
			return s[:200] + "…"
		}
		return s
	}
	for _, e := range log {
		fmt.Fprintf(&b, "#%d %s rule=%q outcome=%q start=%s dur=%s tools=%v\n", e.Seq, e.API, e.Rule, e.Outcome,
			e.Start.Format("15:04:05.000"), e.Duration(), e.Tools)
		for i, m := range e.Messages {
			fmt.Fprintf(&b, "  [%d] %s %q", i, m.Role, clip(m.Text))
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, " call %s(%s)", c.Name, clip(string(c.Input)))
			}
			for _, r := range m.ToolResults {
				fmt.Fprintf(&b, " result %q", clip(r.Content))
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// providers lists both wire protocols; tests run once per provider.
var providers = []string{"anthropic", "openai"}

// result is one finished atomic process.
type result struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

// command builds an atomic invocation against srv in a fresh workspace.
func command(t testing.TB, ctx context.Context, srv *loopback.Server, prov, workspace string, args ...string) *exec.Cmd {
	t.Helper()
	home := t.TempDir()
	// Fast retries so error scenarios take milliseconds, not seconds.
	cfgDir := filepath.Join(home, "atomic")
	os.MkdirAll(cfgDir, 0o755)
	os.WriteFile(filepath.Join(cfgDir, "config.json"), []byte(`{"retry":{"max_attempts":3,"base_delay_ms":20,"max_delay_ms":200}}`), 0o644)
	base := srv.URL()
	if prov == "openai" {
		base += "/v1"
	}
	full := append([]string{"run", "--provider", prov, "--model", "test-model", "--base-url", base}, args...)
	cmd := exec.CommandContext(ctx, binary, full...)
	cmd.Dir = workspace
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"ANTHROPIC_API_KEY=test-key", "OPENAI_API_KEY=test-key",
	}
	// Profiling a benchmark's atomic: the hidden variables pass through.
	for _, k := range []string{"ATOMIC_CPUPROFILE", "ATOMIC_MEMPROFILE"} {
		if v := os.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	return cmd
}

// atomic runs the binary to the end.
func atomic(t *testing.T, srv *loopback.Server, prov, workspace string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return runCmd(t, command(t, ctx, srv, prov, workspace, args...))
}

// runCmd runs cmd to its end and collects its output and exit code.
func runCmd(t testing.TB, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running atomic: %v", err)
	}
	return r
}

// replay applies a stream-json run to a lifecycle.State, as its reader
// would, calling check after each event.
func replay(evs []event.Raw, check func(i int, e event.Raw, st *lifecycle.State)) *lifecycle.State {
	st := &lifecycle.State{}
	for i, e := range evs {
		st.Apply(e.Event())
		check(i, e, st)
	}
	return st
}

// events parses stream-json output.
func events(t testing.TB, out string) []event.Raw {
	t.Helper()
	var evs []event.Raw
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event.Raw
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("stream-json line is not JSON: %q: %v", sc.Text(), err)
		}
		evs = append(evs, e)
	}
	return evs
}

// workspace makes a temp folder with files.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func data[T any](t *testing.T, e event.Raw) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(e.Data, &v); err != nil {
		t.Fatalf("%s data: %v", e.Type, err)
	}
	return v
}

func readFile(dir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	return string(b), err
}

// bashCallsServer is a loopback model that calls bash once for each of
// commands (named by descriptions, or "probe"), all in one turn, then
// answers "Done.".
func bashCallsServer(t testing.TB, commands, descriptions []string) *loopback.Server {
	t.Helper()
	var calls []string
	for i, c := range commands {
		desc := "probe"
		if i < len(descriptions) {
			desc = descriptions[i]
		}
		in, _ := json.Marshal(map[string]string{"command": c, "description": desc})
		calls = append(calls, fmt.Sprintf("        - {name: bash, input: %s}", in))
	}
	return server(t, `
rules:
  - name: calls
    match: {has_tool_results: false}
    respond:
      text: "Trying."
      tool_calls:
`+strings.Join(calls, "\n")+`
  - name: answer
    match: {has_tool_results: true}
    respond: {text: "Done."}
`)
}
