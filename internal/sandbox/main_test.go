package sandbox

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// helperEnv makes the test binary a helper a sandboxed command runs:
// "dial tcp ADDR" dials with Go's net package and reports the result;
// "ioctl TIOCSTI TEXT" pushes TEXT into the input of the terminal on
// stdin, "ioctl TIOCSTI-HIGH TEXT" the same with high bits set in the
// request (which the kernel drops), "ioctl TIOCLINUX" asks the terminal
// for a console paste.
const helperEnv = "ATOMIC_SANDBOX_TEST_HELPER"

func TestMain(m *testing.M) {
	if h := os.Getenv(helperEnv); h != "" {
		os.Exit(helper(h))
	}
	goleak.VerifyTestMain(m)
}

func helper(args string) int {
	if rest, ok := strings.CutPrefix(args, "ioctl "); ok {
		return ioctlHelper(rest)
	}
	var network, addr string
	if _, err := fmt.Sscanf(args, "dial %s %s", &network, &addr); err != nil {
		fmt.Println("bad helper args:", args)
		return 2
	}
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	c.Close()
	fmt.Println("connected")
	return 0
}
