package observe

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
)

// BenchmarkObservedRun: what observing a run costs, a fresh state
// directory each time (the log's directories made, the file created): a
// lead and three sub-agents through the bus to the log, and Close.
func BenchmarkObservedRun(b *testing.B) {
	root := b.TempDir()
	for i := 0; b.Loop(); i++ {
		lf := NewLogFile(filepath.Join(root, "h"+time.Now().Format("150405.000000000"), ".local", "state", "atomic", LogName))
		bs := bus.New()
		obs := Watch(bs, time.Now, nil, NewLogger(lf))
		evs := flat(leadStart(0))
		for _, id := range []string{"a", "b", "c"} {
			evs = append(evs, spawn(1, "lead", id, "c"+id, "explore", "native", false)...)
			evs = append(evs, finish(2, "lead", id, "c"+id, true, 1, event.Usage{})...)
		}
		for _, e := range append(evs, leadComplete(3, false)) {
			bs.Emit(e)
		}
		if err := obs.Close(); err != nil {
			b.Fatal(err)
		}
		lf.Close()
	}
}
