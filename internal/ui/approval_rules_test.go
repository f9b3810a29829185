package ui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// The prompt names the rules "allow for this session" adds, and pressing
// it adds exactly those.
func TestApprovalPromptShowsTheSessionRules(t *testing.T) {
	q := NewApprovals(nil)
	gate, err := permission.NewGate(permission.Options{Mode: permission.Default, Asker: q})
	if err != nil {
		t.Fatal(err)
	}
	m := New(Config{Backend: &fakeBackend{}, Approvals: q})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	req := permission.Request{ID: "perm-1", AgentName: "lead", Tool: "bash", Kind: tools.Exec, Subject: "go test ./x && echo ok"}
	done := make(chan permission.Decision)
	go func() { done <- gate.Decide(context.Background(), req) }()
	waitFor(t, func() bool { return q.Len() == 1 })
	m.Update(eventsMsg{Approvals: true})
	if f := frame(m); !strings.Contains(f, "Allow bash(go test:*), bash(echo ok:*) for this session (a)") {
		t.Fatalf("prompt does not name the session rules:\n%s", f)
	}
	m.Update(tea.KeyPressMsg{Code: 'a', Text: "a"})
	if d := <-done; !d.Allow {
		t.Fatalf("allowed for the session, got %+v", d)
	}
	if d, decided := gate.Check(permission.Request{Tool: "bash", Kind: tools.Exec, Subject: "go test ./y"}); !decided || !d.Allow {
		t.Fatal("bash(go test:*) should now be allowed without asking")
	}
	if _, decided := gate.Check(permission.Request{Tool: "bash", Kind: tools.Exec, Subject: "go test ./y; touch f"}); decided {
		t.Fatal("touch was never approved and must be asked")
	}
}
