package e2e

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// initRunners are Atomic's packages allowed code that runs at start: the
// watchdog must decide before main whether this process is one; cli and
// store (a signal-name table, the backend openers, the insert statements)
// run in every agent run anyway and are left to the start-up work there.
var initRunners = []string{"internal/cli", "internal/reaper/supervisor", "internal/store"}

// TestAtomicsPackagesRunNoCodeAtStartButTheAllowedOnes: Go runs every
// linked package's init in every process, and the first instruction of
// one pages in the binary around it (the kernel maps 64 KB or more per
// fault), so a package-level map, sync.OnceValue or MustCompile in a
// package a run never uses costs that run resident memory. Declared as
// lazy.Regexp, lazy.Value, switches or static slices they cost nothing.
func TestAtomicsPackagesRunNoCodeAtStartButTheAllowedOnes(t *testing.T) {
	out, err := exec.Command("go", "tool", "nm", binary).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	initFn := regexp.MustCompile(`^\s*[0-9a-f]+ T github\.com/atomic-agent/atomic/(\S+?)\.(?:map\.)?init(?:\.\d+)?$`)
	var found []string
	for _, line := range strings.Split(string(out), "\n") {
		m := initFn.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if !slices.Contains(initRunners, m[1]) {
			found = append(found, strings.TrimSpace(line))
		}
	}
	if len(found) > 0 {
		t.Fatalf("packages of Atomic with code run at init (make it static or lazy; see package lazy):\n%s", strings.Join(found, "\n"))
	}
	if !strings.Contains(string(out), "github.com/atomic-agent/atomic/internal/reaper/supervisor.init.0") {
		t.Fatal("the watchdog's init is gone from the binary: the test no longer reads the symbols it means to")
	}
}
