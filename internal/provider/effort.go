package provider

import (
	"fmt"
	"strings"
)

// Effort is how hard the model is asked to think before it answers
// (--effort, config effort, an agent file's effort:). Empty asks for no
// thinking.
type Effort string

// The levels.
const (
	EffortNone   Effort = ""
	EffortLow    Effort = "low"
	EffortMedium Effort = "medium"
	EffortHigh   Effort = "high"
	EffortMax    Effort = "max"
)

// Efforts are the levels, least first.
var Efforts = []Effort{EffortLow, EffortMedium, EffortHigh, EffortMax}

// ParseEffort reads a level; empty is EffortNone. Anything else is an
// error naming the value and the levels.
func ParseEffort(s string) (Effort, error) {
	v := Effort(strings.ToLower(strings.TrimSpace(s)))
	if v == EffortNone {
		return v, nil
	}
	for _, e := range Efforts {
		if v == e {
			return v, nil
		}
	}
	return EffortNone, fmt.Errorf("unknown effort %q: want low, medium, high or max", s)
}
