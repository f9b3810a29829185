package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/atomic-agent/atomic/internal/headless"
	"github.com/atomic-agent/atomic/internal/reaper"
)

// descendantGrace is how long processes still running when Atomic exits get
// between SIGTERM and SIGKILL.
const descendantGrace = time.Second

// Main is the atomic process. For the commands that start agents (the TUI,
// atomic run, acp, worker) it adopts orphans and ends every descendant on
// exit; the first child process it starts also starts its watchdog (see
// package reaper), so no child outlives Atomic, even when Atomic is
// SIGKILLed, and a run that starts none pays for no second process.
func Main(args []string) int {
	if !reaper.StartsAgents(args) {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return Run(ctx, args, System())
	}
	tree := reaper.Adopt()
	defer tree.Close(descendantGrace)
	ctx, stop := interruptContext(os.Stdout)
	defer stop()
	return Run(ctx, args, System())
}

// signalNames are the signals that interrupt Atomic, with the names its
// message gives them.
var signalNames = map[os.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}

// interruptContext is cancelled, with a headless.Interrupted cause naming
// it, by the first SIGINT, SIGTERM or SIGHUP, or when stdout's reader goes
// away. SIGPIPE is caught so a write to a closed stdout fails with EPIPE
// instead of killing the process before it ends its children.
func interruptContext(stdout *os.File) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	pipe := make(chan os.Signal, 1) // never read: the write's EPIPE is what counts
	signal.Notify(pipe, syscall.SIGPIPE)
	stopWatch := watchClosed(stdout, func() {
		cancel(headless.Interrupted{Why: "stdout closed", Code: headless.ExitStdoutGone})
	})
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for {
			select {
			case s := <-sigs:
				n := int(s.(syscall.Signal))
				cancel(headless.Interrupted{Why: signalNames[s], Code: 128 + n})
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		signal.Stop(pipe)
		close(done)
		<-ended
		stopWatch()
		cancel(context.Canceled)
	}
}
