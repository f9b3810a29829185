package ui

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden frames under testdata/")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
