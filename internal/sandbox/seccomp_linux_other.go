//go:build linux && !amd64 && !arm64

package sandbox

// nativeArchs is empty: no syscall table for this architecture, so the
// sandbox reports itself unsupported rather than leave the network open.
var nativeArchs []arch
