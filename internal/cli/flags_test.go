package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// run runs the CLI with args in a scratch folder with no environment and
// returns the exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runEnv(t, nil, args...)
}

// runEnv is run with extra environment variables.
func runEnv(t *testing.T, extra map[string]string, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_STATE_HOME": filepath.Join(dir, "state")}
	for k, v := range extra {
		env[k] = v
	}
	return runEnvIn(t, dir, env, args...)
}

// runEnvIn runs the CLI in dir with exactly env.
func runEnvIn(t *testing.T, dir string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, IOStreams{
		In: strings.NewReader(""), Out: &out, Err: &errOut,
		Getenv: func(k string) string { return env[k] }, Dir: dir,
	})
	return code, out.String(), errOut.String()
}

func TestHelpExitsZeroAndPrintsTheFlagsToStdout(t *testing.T) {
	cases := [][]string{
		{"run", "--help"},
		{"run", "-h"},
		{"--help"},
		{"-h"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := run(t, args...)
			if code != 0 {
				t.Errorf("exit %d, want 0", code)
			}
			for _, flag := range []string{"-max-subagents", "-permission-mode", "-base-url", "-timeout"} {
				if !strings.Contains(out, flag) {
					t.Errorf("stdout lacks %s:\n%s", flag, out)
				}
			}
			if errOut != "" {
				t.Errorf("stderr = %q, want nothing", errOut)
			}
		})
	}
	if _, out, _ := run(t, "run", "--help"); !strings.Contains(out, "-output-format") || !strings.Contains(out, "atomic run") {
		t.Errorf("atomic run --help lacks its own flags or name:\n%s", out)
	}
}

func TestLimitFlagsBelowOneAreErrorsNamingTheFlag(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--max-subagents", "0"}, "--max-subagents: must be at least 1, got 0"},
		{[]string{"--max-turns", "-1"}, "--max-turns: must be at least 1, got -1"},
		{[]string{"--max-teammates", "0"}, "--max-teammates: must be at least 1, got 0"},
		{[]string{"--max-remote-tasks", "-1"}, "--max-remote-tasks: must be 0 (no cap) or more, got -1"},
		{[]string{"--timeout", "0s"}, "--timeout: must be more than 0, got 0s"},
		{[]string{"--timeout", "-5m"}, "--timeout: must be more than 0, got -5m0s"},
		{[]string{"--effort", "extreme"}, `--effort: unknown effort "extreme": want low, medium, high or max`},
	}
	for _, c := range cases {
		for _, cmd := range [][]string{{"run", "-p", "hi"}, {}} {
			args := append(append([]string{}, cmd...), c.args...)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, _, errOut := run(t, args...)
				if code != 2 || !strings.Contains(errOut, c.want) {
					t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, c.want)
				}
			})
		}
	}
}

func TestBadConfigFileStopsTheRunNamingTheField(t *testing.T) {
	for body, want := range map[string]string{
		`{"max_subagents": 0}`:  "config max_subagents: must be at least 1, got 0",
		`{"effort": "extreme"}`: `config effort: unknown effort "extreme": want low, medium, high or max`,
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, "config.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := run(t, "run", "--config", p, "--demo", "-p", "hi")
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", body, code, errOut, want)
		}
	}
}

func TestUnknownFlagIsNamedWithWhereToFindTheFlags(t *testing.T) {
	code, out, errOut := run(t, "run", "--max-subagent", "3", "-p", "hi")
	if code != 2 || !strings.Contains(errOut, "--max-subagent") || !strings.Contains(errOut, "atomic run --help") {
		t.Errorf("exit %d, stderr %q; want 2 naming the flag and pointing at --help", code, errOut)
	}
	if out != "" {
		t.Errorf("stdout = %q, want nothing", out)
	}
}

// TestDeadLocalEndpointFailsFastNamingTheURL runs headless against a closed
// local port with the default retry policy: the run fails with the URL
// named, after the one quick retry the policy allows (announced as a retry
// event), long before the old 11 s of backoff.
func TestDeadLocalEndpointFailsFastNamingTheURL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	for _, prov := range []string{"openai", "anthropic"} {
		t.Run(prov, func(t *testing.T) {
			start := time.Now()
			code, out, errOut := runEnv(t, map[string]string{"ANTHROPIC_API_KEY": "k"}, "run", "--provider", prov, "--base-url", "http://"+addr, "--output-format", "stream-json", "-p", "hi")
			elapsed := time.Since(start)
			if code == 0 {
				t.Fatalf("exit 0 against a closed port; stdout %s", out)
			}
			want := "cannot connect to http://" + addr + "/"
			if !strings.Contains(errOut, want) || !strings.Contains(errOut, "(connection refused): is the server running?") {
				t.Errorf("stderr = %q, want it to say %q… (connection refused): is the server running?", errOut, want)
			}
			if n := strings.Count(out, `"type":"retry"`); n != 1 || !strings.Contains(out, `"reason":"connection refused"`) {
				t.Errorf("stream-json has %d retry events, want 1 with reason connection refused:\n%s", n, out)
			}
			if elapsed > 2*time.Second {
				t.Errorf("the error took %v, want well under 2s", elapsed)
			}
		})
	}
}
