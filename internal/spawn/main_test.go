package spawn

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/testkit"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, testkit.KnownLeaks()...)
}
