package sandbox

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// Landlock confines what a command opens, creates, renames and removes,
// not the metadata of what it may only read: chmod, chown, touch -d and
// extended attributes of a file outside the workspace pass it. Dropping
// capabilities (caps_linux.go) covers other users' files; a command run
// as root still owns every root-owned file. Where Atomic may (it has
// CAP_SYS_ADMIN, as root on a host), commands run in a mount namespace of
// the session's in which every mount is read-only except the writable
// folders, so those changes fail with EROFS.

// readOnlyNamespace returns a mount namespace, made once for the session,
// in which every mount is read-only but writable, with the shields up
// (and -1 when this process cannot make one). Each command's thread joins it (joinNamespace),
// which costs a fraction of making one per command: copying the mount
// table and tearing it down, an RCU grace period, took milliseconds.
func readOnlyNamespace(writable []string, shields []shield) int {
	if !mayShield() {
		return -1
	}
	fdc := make(chan int, 1)
	go func() {
		// Never unlocked: the thread ends with the goroutine; the
		// namespace lives on through the descriptor.
		runtime.LockOSThread()
		if mountReadOnly(writable) != nil || raise(shields) != nil {
			fdc <- -1
			return
		}
		fd, err := unix.Open("/proc/thread-self/ns/mnt", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			fd = -1
		}
		fdc <- fd
	}()
	return <-fdc
}

// mayShield reports whether this process has what making the mount
// namespace takes (making it can still fail). A variable: tests play a
// process without it.
var mayShield = func() bool { return hasCap(unix.CAP_SYS_ADMIN) && hasCap(unix.CAP_SYS_CHROOT) }

// joinNamespace moves the calling thread into the mount namespace ns. Its
// working directory becomes the namespace's root.
func joinNamespace(ns int) error {
	if err := unix.Unshare(unix.CLONE_FS); err != nil {
		return fmt.Errorf("sandbox: a file system context for the command: %w", err)
	}
	if err := unix.Setns(ns, unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("sandbox: joining the read-only mount namespace: %w", err)
	}
	return nil
}

// hasCap reports whether the calling thread has capability c in effect.
func hasCap(c int) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[c/32].Effective&(1<<(c%32)) != 0
}

// mountReadOnly moves the calling thread into a new mount namespace, kept
// from sending mount events back to Atomic's (a slave), where every mount
// is read-only but writable, bind-mounted over itself as it was before.
func mountReadOnly(writable []string) error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("sandbox: a mount namespace for the command: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("sandbox: isolating the command's mounts: %w", err)
	}
	trees := make([]int, 0, len(writable))
	defer func() {
		for _, fd := range trees {
			unix.Close(fd)
		}
	}()
	for _, w := range writable {
		fd, err := unix.OpenTree(unix.AT_FDCWD, w, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("sandbox: keeping %s writable: %w", w, err)
		}
		trees = append(trees, fd)
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("sandbox: making the command's mounts read-only: %w", err)
	}
	for i, w := range writable {
		if err := unix.MoveMount(trees[i], "", unix.AT_FDCWD, w, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("sandbox: keeping %s writable: %w", w, err)
		}
	}
	return nil
}
