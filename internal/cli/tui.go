package cli

import (
	"context"
	"fmt"
)

func runTUI(ctx context.Context, args []string, io IOStreams) int {
	fmt.Fprintln(io.Err, "atomic: the chat UI is not built yet; use 'atomic run --demo -p \"...\"'")
	return 2
}
