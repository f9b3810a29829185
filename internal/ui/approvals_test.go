package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestAskReturnsTheAnswerGiven(t *testing.T) {
	for _, a := range []permission.Answer{permission.AllowOnce, permission.AllowSession, permission.Deny} {
		q := NewApprovals(nil)
		got := make(chan permission.Answer, 1)
		go func() {
			ans, _ := q.Ask(context.Background(), permission.Request{ID: "r1", Tool: "bash"})
			got <- ans
		}()
		waitFor(t, func() bool { return q.Len() == 1 })
		if !q.Answer("r1", a) {
			t.Fatal("Answer found no waiting request")
		}
		if g := <-got; g != a {
			t.Errorf("Ask returned %v, want %v", g, a)
		}
	}
}

func TestAskDeniesWhenItsContextEnds(t *testing.T) {
	q := NewApprovals(nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		ans, err := q.Ask(ctx, permission.Request{ID: "r1", Tool: "bash"})
		if ans != permission.Deny {
			err = errors.New("answer was not Deny")
		}
		errc <- err
	}()
	waitFor(t, func() bool { return q.Len() == 1 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Ask error = %v, want context.Canceled", err)
	}
	if q.Len() != 0 {
		t.Error("a given-up request stays in the queue")
	}
}

func TestCloseDeniesWaitingAndLaterRequests(t *testing.T) {
	q := NewApprovals(nil)
	errc := make(chan error, 1)
	go func() {
		_, err := q.Ask(context.Background(), permission.Request{ID: "r1", Tool: "bash"})
		errc <- err
	}()
	waitFor(t, func() bool { return q.Len() == 1 })
	q.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrUIClosed) {
			t.Errorf("waiting Ask error = %v, want ErrUIClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close left an Ask hanging")
	}
	ans, err := q.Ask(context.Background(), permission.Request{ID: "r2", Tool: "bash"})
	if ans != permission.Deny || !errors.Is(err, ErrUIClosed) {
		t.Errorf("Ask after Close = %v, %v; want Deny, ErrUIClosed", ans, err)
	}
}

func TestApprovalQueueIsAnsweredInOrderThroughTheModel(t *testing.T) {
	q := NewApprovals(nil)
	m := New(Config{Backend: &fakeBackend{}, Approvals: q, Now: func() time.Time { return t0 }})
	results := make(chan string, 2)
	for _, id := range []string{"first", "second"} {
		go func() {
			ans, _ := q.Ask(context.Background(), permission.Request{ID: id, AgentID: id, AgentName: id, Tool: "bash", Subject: "make"})
			results <- id + "=" + map[permission.Answer]string{permission.AllowOnce: "once", permission.AllowSession: "session", permission.Deny: "deny"}[ans]
		}()
		waitFor(t, func() bool { return q.Len() >= 1 })
		waitFor(t, func() bool { h, _ := q.Head(); return h.ID == "first" })
	}
	waitFor(t, func() bool { return q.Len() == 2 })
	m.Update(eventsMsg{Approvals: true})
	if m.approval == nil || m.approval.ID != "first" {
		t.Fatalf("prompt shows %v, want the oldest request", m.approval)
	}
	press(m, "a")
	if got := <-results; got != "first=session" {
		t.Errorf("first answer %s", got)
	}
	if m.approval == nil || m.approval.ID != "second" {
		t.Fatalf("after answering, the prompt should show the next request, got %v", m.approval)
	}
	press(m, "esc")
	if got := <-results; got != "second=deny" {
		t.Errorf("second answer %s", got)
	}
	if m.approval != nil {
		t.Error("prompt still shown with an empty queue")
	}
}

func TestTheApprovalPromptNamesANestedAgentByItsPathFromTheLead(t *testing.T) {
	q := NewApprovals(nil)
	m := New(Config{Backend: &fakeBackend{}, Approvals: q, Now: func() time.Time { return t0 }})
	answered := make(chan struct{})
	go func() {
		_, _ = q.Ask(context.Background(), permission.Request{ID: "p1", AgentID: "explore-3", AgentName: "explore-3",
			Path: "lead › reviewer-1 › explore-3", Tool: "bash", Kind: tools.Exec, Subject: "make"})
		close(answered)
	}()
	waitFor(t, func() bool { return q.Len() == 1 })
	m.Update(eventsMsg{Approvals: true})
	if f := frame(m); !strings.Contains(f, "lead › reviewer-1 › explore-3 wants to run:") {
		t.Fatalf("the prompt does not name the path:\n%s", f)
	}
	press(m, "y")
	<-answered
}
