//go:build !unix

package tools

// openNonblock: no FIFOs to block on here.
const openNonblock = 0
