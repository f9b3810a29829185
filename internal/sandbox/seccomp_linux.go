package sandbox

import "golang.org/x/sys/unix"

// Offsets in struct seccomp_data (little-endian: args[0]'s low word).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

// arch is one syscall ABI a process on this machine may use.
type arch struct {
	audit uint32
	// socket is the socket(2) number; others are denied outright
	// (socketcall, io_uring_setup, whose IORING_OP_SOCKET would bypass
	// the filter).
	socket uint32
	others []uint32
}

// seccompFilter returns a filter that refuses (EACCES) sockets of every
// family but AF_UNIX and AF_NETLINK (local IPC, which getaddrinfo and
// many tools use), for archs (this machine's, when nil). It returns nil
// where no ABI table exists.
func seccompFilter(archs []arch) []unix.SockFilter {
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
	)
	// Layout: per arch a block [jeq arch][ld nr][jeq socket → domain]
	// [jeq other → deny]…[ret allow]; then the shared tail:
	// domain: [ld arg0][jeq AF_UNIX → allow][jeq AF_NETLINK → allow][deny]
	// and [allow] for unknown archs.
	var prog []unix.SockFilter
	prog = append(prog, stmt(ld, offArch))
	var toDomain []int // jt of a jeq to patch to the domain check
	var toDeny []int
	for _, a := range archs {
		blockLen := 3 + len(a.others) + 1 // jeq arch is counted below
		prog = append(prog, jeq(a.audit, 0, uint8(blockLen)))
		prog = append(prog, stmt(ld, offNr))
		toDomain = append(toDomain, len(prog))
		prog = append(prog, jeq(a.socket, 0, 0))
		for _, o := range a.others {
			toDeny = append(toDeny, len(prog))
			prog = append(prog, jeq(o, 0, 0))
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
	denyAt := domain + 3
	for _, i := range toDomain {
		prog[i].Jt = uint8(domain - i - 1)
	}
	for _, i := range toDeny {
		prog[i].Jt = uint8(denyAt - i - 1)
	}
	return prog
}
