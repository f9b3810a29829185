package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
)

// The loopback guide's scenario runs as docs/loopback.md says, on both
// wire protocols: two explore agents at once, then the lead's answer.
func TestTheLoopbackGuidesFanOutScenarioRunsAsTheGuideSays(t *testing.T) {
	scenario, err := os.ReadFile(filepath.Join("..", "docs", "loopback-fanout.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			srv := server(t, string(scenario))
			r := atomic(t, srv, prov, t.TempDir(), "-p", "survey the code")
			if r.code != 0 || strings.TrimSpace(r.stdout) != "Auth is in auth.go; the database code is in db.go." {
				t.Fatalf("code %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
			}
			var rules []string
			for _, e := range srv.Log() {
				rules = append(rules, e.Rule)
			}
			if len(rules) != 4 || rules[0] != "lead-fanout" || rules[3] != "lead-answer" ||
				len(loopback.ByRule(srv.Log(), "explore-a")) != 1 || len(loopback.ByRule(srv.Log(), "explore-b")) != 1 {
				t.Fatalf("requests by rule %v, want lead-fanout, explore-a and explore-b, lead-answer", rules)
			}
		})
	}
}
