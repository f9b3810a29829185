package cli

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/provider/openai/openaitest"
	"github.com/atomic-agent/atomic/internal/testkit"
)

func TestMain(m *testing.M) {
	openaitest.Serve() // this binary is also atomic-openai, for the OpenAI runs
	remove, err := openaitest.Install()
	if err != nil {
		fmt.Fprintln(os.Stderr, "installing atomic-openai:", err)
		os.Exit(1)
	}
	code := m.Run()
	remove()
	if code == 0 {
		if err := goleak.Find(testkit.KnownLeaks()...); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
