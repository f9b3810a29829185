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
	if spec := os.Getenv(recorderEnv); spec != "" {
		os.Exit(recordAndExit(spec)) // a run of exit_test.go
	}
	goleak.VerifyTestMain(m)
}
