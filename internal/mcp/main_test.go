package mcp_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.ServeStdio()
	goleak.VerifyTestMain(m)
}
