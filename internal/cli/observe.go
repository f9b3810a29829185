package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/atomic-agent/atomic/internal/observe"
	"github.com/atomic-agent/atomic/internal/runtime"
)

// observeRun starts the lifecycle log of rt's run in the state directory
// (and, in a later step, other sinks). A log that cannot be opened is one
// warning; the run goes on. The returned func closes rt, then the log, so
// the agents' last events are in it.
func observeRun(ios IOStreams, rt *runtime.Runtime) (closeRun func()) {
	var sinks []observe.SpanSink
	var file *os.File
	path, err := observe.LogPath(ios.Getenv)
	if err == nil {
		file, err = observe.OpenLog(path)
	}
	if err != nil {
		fmt.Fprintf(ios.Err, "atomic: warning: %v; agents are not logged\n", err)
	} else {
		sinks = append(sinks, observe.NewLogger(file))
	}
	obs := observe.Watch(rt.Bus(), time.Now, sinks...)
	return func() {
		rt.Close()
		if err := obs.Close(); err != nil {
			fmt.Fprintf(ios.Err, "atomic: warning: %v\n", err)
		}
		if file != nil {
			if err := file.Close(); err != nil {
				fmt.Fprintf(ios.Err, "atomic: warning: lifecycle log: %v\n", err)
			}
		}
	}
}
