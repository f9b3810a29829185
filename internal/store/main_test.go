package store

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(holderEnv); spec != "" {
		os.Exit(holdUntilStdinCloses(spec)) // a holder process of lock_test.go
	}
	goleak.VerifyTestMain(m)
}
