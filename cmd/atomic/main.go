// Command atomic is a terminal coding agent with parallel sub-agents.
package main

import (
	"os"

	"github.com/atomic-agent/atomic/internal/cli"
	_ "github.com/atomic-agent/atomic/internal/reaper/supervisor" // a watchdog runs from its init; other processes may start one
)

func main() {
	stop := startProfiles()
	code := cli.Main(os.Args[1:])
	stop()
	os.Exit(code)
}
