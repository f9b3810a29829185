//go:build !linux

package sandbox

import "fmt"

func ioctlHelper(args string) int {
	fmt.Println("terminal ioctls are only tried on Linux:", args)
	return 2
}
