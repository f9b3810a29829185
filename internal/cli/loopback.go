package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/atomic-agent/atomic/internal/loopback"
)

func runLoopback(ctx context.Context, args []string, io IOStreams) int {
	err := loopback.Run(ctx, args, io.Out, io.Err)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(io.Err, "atomic loopback: %v\n", err)
		return 1
	}
	return 0
}
