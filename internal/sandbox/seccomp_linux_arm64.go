package sandbox

import "golang.org/x/sys/unix"

// nativeArchs: arm64, and 32-bit ARM programs (socket 281, ioctl 54).
var nativeArchs = []arch{
	{audit: unix.AUDIT_ARCH_AARCH64, socket: unix.SYS_SOCKET, others: []uint32{unix.SYS_IO_URING_SETUP}, ioctls: []uint32{unix.SYS_IOCTL}},
	{audit: unix.AUDIT_ARCH_ARM, socket: 281, others: []uint32{unix.SYS_IO_URING_SETUP}, ioctls: []uint32{54}},
}
