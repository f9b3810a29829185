// Command alloc is the known allocation the peakrss tests measure: it
// allocates and touches -mb MB, runs a clone of itself that never execs
// for -unexeced-hold if asked, runs itself with -mb CHILD-MB as its child
// if asked, holds its memory for -hold and exits. It is built without the
// race detector, whose shadow memory would double what it holds.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"time"
)

func main() {
	mb := flag.Int("mb", 0, "MB to allocate and touch")
	childMB := flag.Int("child-mb", 0, "if not 0, run a child that allocates this many MB")
	hold := flag.Duration("hold", 0, "how long to hold the memory")
	unexeced := flag.Duration("unexeced-hold", 0, "if not 0, first run a clone that shares this memory, never execs and lives this long")
	flag.Parse()
	b := make([]byte, *mb<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	if *unexeced > 0 {
		holdUnexeced(*unexeced)
	}
	if *childMB > 0 {
		cmd := exec.Command(os.Args[0], "-mb", fmt.Sprint(*childMB), "-hold", hold.String())
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "alloc: child:", err)
			os.Exit(1)
		}
	} else {
		time.Sleep(*hold)
	}
	runtime.KeepAlive(b)
}
