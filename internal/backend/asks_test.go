package backend

import (
	"context"
	"testing"
)

func TestAsksWithdrawCancelsOnlyTheOwnersPendingAsks(t *testing.T) {
	var a Asks
	lead, leadDone := a.Add(context.Background(), "1", "lead-thread")
	child, _ := a.Add(context.Background(), "2", "child-thread")
	answered, answer := a.Add(context.Background(), "3", "child-thread")
	answer()
	if answered.Err() == nil {
		t.Error("an answered ask's context is still live")
	}
	a.Withdraw("child-thread")
	if child.Err() == nil {
		t.Error("the child's pending ask was not withdrawn")
	}
	if lead.Err() != nil {
		t.Error("withdrawing the child's asks cancelled the lead's")
	}
	a.WithdrawAll()
	if lead.Err() == nil {
		t.Error("WithdrawAll left the lead's ask pending")
	}
	leadDone()
	if n := len(a.asks); n != 1 {
		t.Errorf("%d asks remembered, want 1 (the child's, still unanswered)", n)
	}
}

func TestAsksEndWithTheirParentContext(t *testing.T) {
	var a Asks
	parent, cancel := context.WithCancel(context.Background())
	ctx, done := a.Add(parent, "1", "s")
	defer done()
	cancel()
	if ctx.Err() == nil {
		t.Error("an ask outlived its session's context")
	}
}

func TestAsksDoneSaysWhetherTheCLIStillWaitsForTheAnswer(t *testing.T) {
	var a Asks
	_, withdrawnDone := a.Add(context.Background(), "1", "s")
	resolved, resolvedDone := a.Add(context.Background(), "2", "s")
	a.Withdraw("s") // we took the prompt down: the CLI still needs a reply
	if !withdrawnDone() {
		t.Error("a withdrawn ask is not open: the CLI would never get its rejection")
	}
	a.Resolve("2") // the CLI settled it itself
	if resolved.Err() == nil {
		t.Error("a resolved ask's wait was not cancelled")
	}
	if resolvedDone() {
		t.Error("an ask the CLI resolved is still open: it would be answered twice")
	}
}
