//go:build unix

package openai

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/atomic-agent/atomic/internal/provider/providertest"
)

func TestCloseEndsTheHelperAndRefusesLaterRequests(t *testing.T) {
	srv := serve(t, "rules:\n  - respond: {text: fine}\n")
	dump := filepath.Join(t.TempDir(), "dump.json")
	p := newProvider(t, Config{BaseURL: srv.URL(), Model: "m", Retry: providertest.Fast(1)}, "TEST_DUMP="+dump)
	if _, err := p.Stream(context.Background(), hi("hi"), nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(dump)
	var d struct{ Pid int }
	if err := json.Unmarshal(b, &d); err != nil || d.Pid == 0 {
		t.Fatalf("no pid in %s: %v", b, err)
	}
	p.Close()
	if err := syscall.Kill(d.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the helper (pid %d) still exists after Close: %v", d.Pid, err)
	}
	if _, err := p.Stream(context.Background(), hi("hi"), nil); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("a request after Close: %v, want an error saying the provider is closed", err)
	}
}
