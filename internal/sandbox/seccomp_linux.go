package sandbox

import "golang.org/x/sys/unix"

// Offsets in struct seccomp_data (little-endian: an argument's low word).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

// Terminal ioctls that make a terminal do something on the user's behalf,
// refused whatever the mode: TIOCSTI pushes bytes into a terminal's input
// (the user's shell runs them once Atomic exits) and TIOCLINUX's paste
// subcommand does the same on a Linux console. Both are the asm-generic
// values, which x86 (64- and 32-bit) and ARM (64- and 32-bit) use.
const (
	ioctlTIOCSTI   = 0x5412
	ioctlTIOCLINUX = 0x541C
)

// arch is one syscall ABI a process on this machine may use.
type arch struct {
	audit uint32
	// socket is the socket(2) number; others are denied outright
	// (socketcall, io_uring_setup, whose IORING_OP_SOCKET would bypass
	// the filter).
	socket uint32
	others []uint32
	// ioctls are the ioctl(2) numbers of the ABI (x32 has its own).
	ioctls []uint32
}

// seccompFilter returns the filter of a sandboxed command, for archs
// (this machine's, when nil): it refuses (EPERM) the ioctls TIOCSTI and
// TIOCLINUX and, unless network, (EACCES) sockets of every family but
// AF_UNIX and AF_NETLINK (local IPC, which getaddrinfo and many tools
// use). It returns nil where no ABI table exists.
func seccompFilter(archs []arch, network bool) []unix.SockFilter {
	if archs == nil {
		archs = nativeArchs
	}
	if len(archs) == 0 {
		return nil
	}
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k, Jt: jt, Jf: jf}
	}
	const (
		ld    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		ret   = unix.BPF_RET | unix.BPF_K
		allow = unix.SECCOMP_RET_ALLOW
		deny  = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
		eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	)
	// Layout: per arch a block [jeq arch][ld nr][jeq ioctl → request]…
	// [jeq socket → domain][jeq other → deny]…[ret allow][ld arch]; then
	// [allow] for unknown archs and the shared tail:
	// domain:  [ld arg0][jeq AF_UNIX → allow][jeq AF_NETLINK → allow][deny][allow]
	// request: [ld arg1][jeq TIOCSTI → eperm][jeq TIOCLINUX → eperm][allow][eperm]
	// The kernel takes an ioctl's request as an unsigned int, so its low
	// word is all that is compared: high bits cannot slip one past.
	var prog []unix.SockFilter
	prog = append(prog, stmt(ld, offArch))
	var toDomain, toDeny, toRequest []int // jt of a jeq to patch
	for _, a := range archs {
		checks := len(a.ioctls)
		if !network {
			checks += 1 + len(a.others)
		}
		blockLen := 1 + checks + 1 // ld nr, the checks, ret allow
		prog = append(prog, jeq(a.audit, 0, uint8(blockLen)))
		prog = append(prog, stmt(ld, offNr))
		for _, n := range a.ioctls {
			toRequest = append(toRequest, len(prog))
			prog = append(prog, jeq(n, 0, 0))
		}
		if !network {
			toDomain = append(toDomain, len(prog))
			prog = append(prog, jeq(a.socket, 0, 0))
			for _, o := range a.others {
				toDeny = append(toDeny, len(prog))
				prog = append(prog, jeq(o, 0, 0))
			}
		}
		prog = append(prog, stmt(ret, allow))
		// The next arch's check reloads the arch.
		prog = append(prog, stmt(ld, offArch))
	}
	prog = append(prog, stmt(ret, allow)) // unknown arch: nothing to filter by
	domain := len(prog)
	prog = append(prog,
		stmt(ld, offArg0),
		jeq(unix.AF_UNIX, 2, 0),
		jeq(unix.AF_NETLINK, 1, 0),
		stmt(ret, deny),
		stmt(ret, allow),
	)
	request := len(prog)
	prog = append(prog,
		stmt(ld, offArg1),
		jeq(ioctlTIOCSTI, 2, 0),
		jeq(ioctlTIOCLINUX, 1, 0),
		stmt(ret, allow),
		stmt(ret, eperm),
	)
	denyAt := domain + 3
	for _, i := range toDomain {
		prog[i].Jt = uint8(domain - i - 1)
	}
	for _, i := range toDeny {
		prog[i].Jt = uint8(denyAt - i - 1)
	}
	for _, i := range toRequest {
		prog[i].Jt = uint8(request - i - 1)
	}
	return prog
}
