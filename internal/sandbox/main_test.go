package sandbox

import (
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// helperEnv makes the test binary a helper a sandboxed command runs:
// "dial tcp ADDR" dials with Go's net package and reports the result.
const helperEnv = "ATOMIC_SANDBOX_TEST_HELPER"

func TestMain(m *testing.M) {
	if h := os.Getenv(helperEnv); h != "" {
		os.Exit(helper(h))
	}
	goleak.VerifyTestMain(m)
}

func helper(args string) int {
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
