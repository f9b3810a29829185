package permission

import "testing"

// oracle runs lines under bash; Windows has no /bin/bash to run them.
type oracle struct{}

func newOracle(t testing.TB) *oracle {
	t.Skip("the oracle runs lines under /bin/bash, which Windows lacks")
	return nil
}

func (o *oracle) run(t testing.TB, line string) (ran [][]string, wrote []string) { return nil, nil }
