package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// raise puts the shields up in the calling thread's mount namespace (the
// session's, being made): a pinned path is bind-mounted onto itself (a
// mount point cannot be renamed or removed: EBUSY), a read-only one gets a
// read-only bind of itself (EROFS; its config.lock rename fails with
// EBUSY), a hidden file gets /dev/null bound read-only over it and a
// hidden folder an empty read-only tmpfs. Shields are raised in order, so
// a path's read-only bind sits on its parent's pin.
func raise(shields []shield) error {
	for _, s := range shields {
		if err := raiseOne(s); err != nil {
			return fmt.Errorf("sandbox: shielding %s: %w", s.path, err)
		}
	}
	return nil
}

func raiseOne(s shield) error {
	const ro = unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV
	switch s.kind {
	case pinned:
		return unix.Mount(s.path, s.path, "", unix.MS_BIND|unix.MS_REC, "")
	case readOnly:
		if err := unix.Mount(s.path, s.path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return err
		}
		return unix.Mount("", s.path, "", ro, "")
	case hidden:
		fi, err := os.Lstat(s.path)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			return unix.Mount("tmpfs", s.path, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555")
		}
		if err := unix.Mount("/dev/null", s.path, "", unix.MS_BIND, ""); err != nil {
			return err
		}
		return unix.Mount("", s.path, "", ro|unix.MS_NOEXEC, "")
	}
	return fmt.Errorf("unknown shield kind %d", s.kind)
}
