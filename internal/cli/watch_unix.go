//go:build unix

package cli

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// watchClosed calls gone once f, a pipe or socket, has no reader any more
// (poll reports POLLERR or POLLHUP on it), so a run notices a closed stdout
// even while it has nothing to write. Terminals and files are not watched.
// The returned func stops the watch.
func watchClosed(f *os.File, gone func()) (stop func()) {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return func() {}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: 0}, {Fd: int32(r.Fd()), Events: unix.POLLIN}}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for {
			if _, err := unix.Poll(fds, -1); err != nil {
				if errors.Is(err, unix.EINTR) {
					continue
				}
				return
			}
			if fds[1].Revents != 0 {
				return
			}
			if fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
				gone()
				return
			}
		}
	}()
	return func() {
		w.Close()
		<-ended
		r.Close()
	}
}
