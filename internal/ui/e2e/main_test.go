package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"go.uber.org/goleak"
)

// binary is the atomic binary built once for the package ("" when tmux is
// missing and no test can run).
var binary string

// skipReason says why the terminal tests cannot run here.
var skipReason string

// needTmux stops a test that needs tmux when it is missing: a skip on a
// developer's machine, a failure under CI=true, where a silently skipped
// terminal suite would pass without testing anything.
func needTmux(t *testing.T) {
	t.Helper()
	if skipReason == "" {
		return
	}
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		t.Fatalf("%s and CI=true: the terminal tests must run in CI; install tmux (apt-get install tmux) or run the tests with bash .ci/run", skipReason)
	}
	t.Skip(skipReason)
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if _, err := exec.LookPath("tmux"); err != nil {
		skipReason = "tmux is not installed (.ci/run installs it)"
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "atomic-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "atomic")
	build := exec.Command("go", "build", "-o", binary, "github.com/atomic-agent/atomic/cmd/atomic")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README installs it
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building atomic: %v\n", err)
		return 1
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			return 1
		}
	}
	return code
}
