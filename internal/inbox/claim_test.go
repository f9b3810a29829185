package inbox

import (
	"sync"
	"sync/atomic"
	"testing"
)

// Of many paths taking one message at once, exactly one wins, and what
// waits on the delivery runs once, whether registered before or after.
func TestAClaimIsTakenOnceAndTellsEachWaiterOnceWhicheverPathTookIt(t *testing.T) {
	var c Claim
	var before, after, wins atomic.Int32
	c.Then(func() { before.Add(1) })
	if c.Taken() || before.Load() != 0 {
		t.Fatal("an untaken claim reports taken or ran its waiter")
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if c.Take() {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	c.Then(func() { after.Add(1) })
	if wins.Load() != 1 || !c.Taken() {
		t.Errorf("%d takes won (taken %v), want exactly 1", wins.Load(), c.Taken())
	}
	if before.Load() != 1 || after.Load() != 1 {
		t.Errorf("the waiter registered before ran %d times, the one after %d; want 1 each", before.Load(), after.Load())
	}
	if c.Take() || before.Load() != 1 {
		t.Error("a later take won or ran the waiter again")
	}
}
