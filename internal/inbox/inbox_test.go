package inbox

import (
	"slices"
	"testing"
)

func TestTakeDeliversInOrderAndDropsWhatBecameMoot(t *testing.T) {
	var b Inbox
	read := false
	b.Deliver("first")
	b.DeliverLazy(func() (string, bool) { return "result", !read }, func() bool { return !read })
	b.Deliver("last")
	if !b.Live() {
		t.Fatal("a queued message is not live")
	}
	read = true // the agent read the result by other means
	if got := b.Take(); !slices.Equal(got, []string{"first", "last"}) {
		t.Fatalf("Take = %q, want the plain messages in order and the moot one dropped", got)
	}
	if b.Live() || len(b.Take()) != 0 {
		t.Fatal("the inbox is not empty after Take")
	}
}

func TestLiveIgnoresOnlyMootDeliveriesAndClearDropsAll(t *testing.T) {
	var b Inbox
	b.DeliverLazy(func() (string, bool) { return "", false }, func() bool { return false })
	if b.Live() {
		t.Fatal("a moot delivery counts as live")
	}
	b.Deliver("x")
	b.Clear()
	if b.Live() {
		t.Fatal("Clear left a delivery")
	}
}

func TestComposeJoinsTheDeliveriesThenThePromptAndEmptiesTheInbox(t *testing.T) {
	var b Inbox
	b.Deliver("first")
	b.Deliver("")
	b.DeliverLazy(func() (string, bool) { return "second", true }, func() bool { return true })
	if got, want := b.Compose("the prompt"), "first\n\nsecond\n\nthe prompt"; got != want {
		t.Fatalf("Compose = %q, want %q", got, want)
	}
	if got := b.Compose(""); got != "" {
		t.Fatalf("second Compose = %q, want empty: the inbox was not emptied", got)
	}
}
