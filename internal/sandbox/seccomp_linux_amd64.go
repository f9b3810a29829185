package sandbox

import "golang.org/x/sys/unix"

const x32Bit = 0x40000000

// nativeArchs: x86-64, its x32 numbers (socket | x32Bit; x32's ioctl is
// 514) and i386 programs (socket 359, socketcall 102 denied whole, ioctl
// 54).
var nativeArchs = []arch{
	{audit: unix.AUDIT_ARCH_X86_64, socket: unix.SYS_SOCKET,
		others: []uint32{unix.SYS_SOCKET | x32Bit, unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_SETUP | x32Bit},
		ioctls: []uint32{unix.SYS_IOCTL, unix.SYS_IOCTL | x32Bit, 514 | x32Bit}},
	{audit: unix.AUDIT_ARCH_I386, socket: 359, others: []uint32{102, unix.SYS_IO_URING_SETUP}, ioctls: []uint32{54}},
}
