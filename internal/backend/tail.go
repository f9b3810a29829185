package backend

import "github.com/atomic-agent/atomic/internal/tailbuf"

// Tail keeps the last lines a CLI wrote to stderr (tailbuf.Tail).
type Tail = tailbuf.Tail
