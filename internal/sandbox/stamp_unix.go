//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"
)

// fileStamp is what changes when a file is written, replaced or has its
// mode changed: its inode, size and change time.
type fileStamp struct {
	ino, size   uint64
	ctim, ctimN int64
}

func stampOf(fi fs.FileInfo) fileStamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}
	}
	sec, nsec := ctime(st)
	return fileStamp{ino: uint64(st.Ino), size: uint64(st.Size), ctim: sec, ctimN: nsec}
}
