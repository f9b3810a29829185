//go:build unix

package tools

import "syscall"

// openNonblock keeps an open of a FIFO swapped in for a checked file
// from blocking; the caller then refuses what is not a regular file.
const openNonblock = syscall.O_NONBLOCK
