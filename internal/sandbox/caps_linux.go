package sandbox

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// capSet is a set of capabilities, bit n for capability n.
type capSet uint64

// dropCaps is every capability a command loses: all of them, so that a
// command run as root is uid 0 without root's powers. Landlock confines
// opening, creating, renaming and removing files but not their metadata:
// with CAP_CHOWN, CAP_FOWNER or CAP_DAC_OVERRIDE a root command could
// chmod, chown or touch -d files anywhere; CAP_SETUID would let it become
// another user and read that user's files; CAP_SYS_PTRACE,
// CAP_DAC_READ_SEARCH (open by handle), CAP_SYS_ADMIN, CAP_MKNOD,
// CAP_LINUX_IMMUTABLE and CAP_SYS_BOOT need no saying.
//
// keepDAC keeps CAP_DAC_OVERRIDE: Atomic runs as root on folders it
// gives commands (the workspace, --add-dir) that another user owns, as
// in a container on a bind-mounted checkout, where without it commands
// could not write (or read 0600 files) in their own workspace. It gives
// no metadata change outside (chmod, chown and touch -d need CAP_FOWNER
// or CAP_CHOWN), only touching a file's times to now and its user.*
// extended attributes.
func dropCaps(keepDAC bool) capSet {
	all := ^capSet(0)
	if keepDAC {
		all &^= 1 << unix.CAP_DAC_OVERRIDE
	}
	return all
}

// needsDAC reports whether Atomic runs as root and one of folders is
// owned by another user (see dropCaps).
func needsDAC(folders []string) bool {
	if os.Geteuid() != 0 {
		return false
	}
	for _, f := range folders {
		var st unix.Stat_t
		if f != "" && unix.Stat(f, &st) == nil && st.Uid != 0 {
			return true
		}
	}
	return false
}

// dropThreadCaps takes drop away from the calling thread and from every
// program it runs: from the bounding set (so that executing a program as
// root does not hand them back) and from the thread's effective,
// permitted and inheritable sets, which also empties the ambient set.
// With no_new_privs set, an execve cannot gain a capability the thread's
// permitted set lacks, so the capset alone holds where the bounding set
// cannot be changed (no CAP_SETPCAP).
//
// bounding is false when this process has no CAP_SETPCAP, so that the
// bounding set cannot change: the loop of refused prctl calls is skipped.
func dropThreadCaps(drop capSet, bounding bool) error {
	for c := range 64 {
		if !bounding {
			break
		}
		if drop&(1<<c) == 0 {
			continue
		}
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if err != nil && !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("sandbox: dropping capability %d from the bounding set: %w", c, err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("sandbox: reading the thread's capabilities: %w", err)
	}
	for i := range data {
		m := uint32(drop >> (32 * i))
		data[i].Effective &^= m
		data[i].Permitted &^= m
		data[i].Inheritable &^= m
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("sandbox: dropping the thread's capabilities: %w", err)
	}
	return nil
}
