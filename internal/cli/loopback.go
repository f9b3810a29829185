package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/atomic-agent/atomic/internal/loopback"
)

func runLoopback(ctx context.Context, args []string, io IOStreams) int {
	if err := loopback.Run(ctx, args, io.Out, io.Err); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(io.Err, "atomic loopback: %v\n", err)
		return 1
	}
	return 0
}
